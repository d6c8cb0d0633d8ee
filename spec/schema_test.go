package spec

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite schemas/experiment.schema.json")

const schemaFile = "../schemas/experiment.schema.json"

// The checked-in schema must be what the Go types generate.
func TestSchemaIsCurrent(t *testing.T) {
	got := JSONSchema()
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./spec -run TestSchemaIsCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; regenerate it with: go test ./spec -run TestSchemaIsCurrent -update", schemaFile)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatalf("the generated schema is not valid draft-07: %v", err)
	}
	return s
}

// yamlToJSONValue reads YAML into the plain values a JSON validator takes.
func yamlToJSONValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return normalise(v)
}

func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalise(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalise(e)
		}
		return x
	case int:
		return float64(x)
	}
	return v
}

// Every example must validate against the schema and name it on its first line.
func TestExamplesValidateAgainstSchema(t *testing.T) {
	s := compileSchema(t)
	var files []string
	filepath.WalkDir("../examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no examples yet")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		if !strings.HasPrefix(first, "# yaml-language-server: $schema=") || !strings.HasSuffix(first, "schemas/experiment.schema.json") {
			t.Errorf("%s: the first line must be '# yaml-language-server: $schema=<relative path>/schemas/experiment.schema.json'", f)
		} else {
			rel := strings.TrimPrefix(first, "# yaml-language-server: $schema=")
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), rel)); err != nil {
				t.Errorf("%s: the schema path %s does not resolve: %v", f, rel, err)
			}
		}
		if err := s.Validate(yamlToJSONValue(t, data)); err != nil {
			t.Errorf("%s does not validate against the schema: %v", f, err)
		}
	}
}

// The schema must accept what the decoder accepts and reject what it rejects
// for the main shapes (unknown keys, wrong kinds, ranges).
func TestSchemaAgreesWithDecoder(t *testing.T) {
	s := compileSchema(t)
	good := []string{
		base,
		base + "sweep:\n  grid:\n    dpsgd.noise_multiplier: {linspace: [0.5, 2, 4]}\n  where: \"=dpsgd.steps > 1\"\n",
		"name: q\nvars: {t: 2}\ndpsgd: {noise_multiplier: \"=t*2\", sampling_rate: 0.1, steps: 3}\nbound: [{kind: accountant, accountants: [pld], epsilon: 2}]\n",
	}
	bad := []string{
		base + "colour: red\n",
		"name: q\ndpsgd: {noise_multiplier: -1, sampling_rate: 0.1, steps: 3}\n",
		"name: q\nbound: [{kind: accountant, foo: 1}]\n",
		"name: q\nbound: [{kind: nope}]\n",
		"name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3, sampling: sometimes}\n",
	}
	for _, src := range good {
		if err := s.Validate(yamlToJSONValue(t, []byte(src))); err != nil {
			t.Errorf("schema rejects a good spec:\n%s\n%v", src, err)
		}
		if _, _, err := expand(t, src, Options{}); err != nil {
			t.Errorf("decoder rejects a good spec:\n%s\n%v", src, err)
		}
	}
	for _, src := range bad {
		if err := s.Validate(yamlToJSONValue(t, []byte(src))); err == nil {
			t.Errorf("schema accepts a bad spec:\n%s", src)
		}
		if _, _, err := expand(t, src, Options{}); err == nil {
			t.Errorf("decoder accepts a bad spec:\n%s", src)
		}
	}
}
