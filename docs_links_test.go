package dpaudit

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)|<img src="([^"]+)"`)
	mdHeading = regexp.MustCompile(`^#{1,6} +(.+?) *$`)
	mdCode    = regexp.MustCompile("`[^`]*`")
)

// Every relative link in the README and docs/ points to a file that
// exists, and a link to a heading (page.md#heading) to a heading that
// exists, so that moving a page or renaming a section cannot leave a
// dead link behind.
func TestDocLinks(t *testing.T) {
	pages, _ := filepath.Glob("docs/*.md")
	pages = append(pages, "README.md")
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range markdownLinks(string(text)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %s: no such file", page, target)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if !headingAnchors(string(b))[frag] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", page, target, file, frag)
			}
		}
	}
}

// markdownLinks returns the link targets and image sources outside code
// blocks and code spans.
func markdownLinks(text string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(line, "    ") {
			continue
		}
		line = mdCode.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1]+m[2]) // a link or an image's source
		}
	}
	return out
}

// headingAnchors returns GitHub's anchors of a page's headings: lower
// case, spaces to '-', punctuation other than '-' and '_' dropped, a
// repeated anchor suffixed -1, -2, ….
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		m := mdHeading.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
