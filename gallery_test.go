package dpaudit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every figure an example draws is in the gallery: its PNG under
// docs/gallery/ (as scripts/gallery.sh names it) and shown on
// docs/gallery.md, so a new example or figure cannot be left out.
func TestGalleryShowsEveryExampleFigure(t *testing.T) {
	page, err := os.ReadFile("docs/gallery.md")
	if err != nil {
		t.Fatal(err)
	}
	figures := 0
	for _, path := range exampleSpecs(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Report struct {
				Figures []struct {
					Name string `yaml:"name"`
				} `yaml:"figures"`
			} `yaml:"report"`
		}
		if err := yaml.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".yaml")
		for _, f := range doc.Report.Figures {
			figures++
			png := "gallery/" + base + "--" + f.Name + ".png"
			if _, err := os.Stat(filepath.Join("docs", png)); err != nil {
				t.Errorf("%s draws %q, but docs/%s is missing: run scripts/gallery.sh %s", path, f.Name, png, path)
				continue
			}
			if !strings.Contains(string(page), "![]("+png+")") {
				t.Errorf("docs/gallery.md does not show %s (%s's figure %q)", png, path, f.Name)
			}
		}
	}
	if figures < 40 {
		t.Fatalf("found %d example figures; the examples draw more", figures)
	}
}
