package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The bash completion script, loaded in a real bash, completes commands,
// subcommands and each command's own flags.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	code, script, errs := cli(t, "completion", "bash")
	if code != 0 {
		t.Fatal(errs)
	}
	path := filepath.Join(t.TempDir(), "dpaudit.bash")
	os.WriteFile(path, []byte(script), 0o644)
	cases := []struct {
		line string // the words typed, the last one being completed
		want string // one of the completions
		not  string // not a completion ("" = no check)
	}{
		{"dpaudit ru", "run", "plan"},
		{"dpaudit run spec.yaml --sto", "--store", ""},
		{"dpaudit run spec.yaml -", "-s", "--keep"},
		{"dpaudit validate -", "--set", "--verify"},
		{"dpaudit store g", "gc", "du"},
		{"dpaudit store gc --del", "--delete", ""},
		{"dpaudit account --noise", "--noise-multiplier", ""},
		{"dpaudit completion ", "", ""},
	}
	for _, c := range cases {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := "source " + path + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_dpaudit\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command(bash, "--norc", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", c.line, err, out)
		}
		got := strings.Fields(string(out))
		if c.want != "" && !slices.Contains(got, c.want) {
			t.Errorf("%q completes to %v, want %s among them", c.line, got, c.want)
		}
		if c.not != "" && slices.Contains(got, c.not) {
			t.Errorf("%q completes to %v, which should not hold %s", c.line, got, c.not)
		}
	}
	if code, _, _ := cli(t, "completion", "fish"); code != exitInput {
		t.Errorf("an unknown shell: exit %d, want %d", code, exitInput)
	}
	if code, out, _ := cli(t, "completion", "zsh"); code != 0 || !strings.HasPrefix(out, "#compdef dpaudit") {
		t.Errorf("zsh: exit %d, %q…", code, out[:min(40, len(out))])
	}
}
