package dpaudit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
)

const figureSpec = `name: figs
description: A small accounting sweep with figures.
dpsgd: {noise_multiplier: 1, sampling_rate: 0.01, steps: 100}
bound:
  - kind: accountant
    accountants: [rdp, gdp]
sweep:
  grid:
    dpsgd.noise_multiplier: [0.8, 1, 1.5, 2]
    dpsgd.steps: [100, 1000]
report:
  figures:
    - kind: line
      name: eps-vs-sigma
      title: LABEL
      x: noise_multiplier
      y: [epsilon_rdp, epsilon_gdp]
      y_scale: log
      color: steps
`

// A typo in a figure's column is a positioned spec error before anything
// runs, naming the available columns.
func TestFigureColumnTypoIsPositioned(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "typo.yaml", strings.Replace(figureSpec, "epsilon_gdp]", "epsilon_gpd]", 1))
	_, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	var se spec.Errors
	if !errors.As(err, &se) {
		t.Fatalf("want spec.Errors, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"typo.yaml:17:24:", "report.figures[0].y[1]", `no column "epsilon_gpd"`, `did you mean "epsilon_gdp"`, "epsilon_rdp, rdp_order"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("a spec error wrote results")
	}
}

// A run draws the figures into results/<name>/figures, lists them in the
// manifest and writes report.html; changing a label redraws only the
// figure; dpaudit report redraws from the folder alone.
func TestRunDrawsFigures(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	path := writeSpec(t, dir, "figs.yaml", figureSpec)
	_, res := runSpec(t, path, o)
	for _, f := range []string{"figures/eps-vs-sigma.png", "figures/eps-vs-sigma.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, "figures/eps-vs-sigma.png"))
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(res.Dir)
	if err != nil || len(m.Figures) != 1 || m.Figures[0].Name != "eps-vs-sigma" {
		t.Fatalf("manifest figures %+v, %v", m, err)
	}
	html, _ := os.ReadFile(res.Report)
	if n := strings.Count(string(html), `<figure class="figure"`); n != 1 {
		t.Errorf("report.html has %d figures, want 1", n)
	}
	if !strings.Contains(string(html), "<svg") || strings.Contains(string(html), "http://") && strings.Contains(string(html), "<script src") {
		t.Errorf("report.html does not inline its SVG or loads scripts")
	}
	// A new label: only the figure node runs.
	os.WriteFile(path, []byte(strings.Replace(figureSpec, "LABEL", "New label", 1)), 0o644)
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	run, _ := pipeline.Counts(p.Steps)
	if run != 1 {
		t.Errorf("%d nodes to run after a label change, want 1 (the figure)", run)
	}
	// dpaudit report from the folder alone, without the store.
	os.Remove(filepath.Join(res.Dir, "figures/eps-vs-sigma.svg"))
	rr, err := Report(res.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Figures) != 1 {
		t.Fatalf("report drew %d figures", len(rr.Figures))
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "figures/eps-vs-sigma.svg")); err != nil {
		t.Errorf("report did not redraw: %v", err)
	}
	// Files are created with the umask, not 0600.
	st, _ := os.Stat(filepath.Join(res.Dir, "summary.parquet"))
	if st.Mode().Perm()&0o044 == 0 && umaskAllowsRead() {
		t.Errorf("summary.parquet is %v: created without the umask's read bits", st.Mode().Perm())
	}
}

func umaskAllowsRead() bool {
	f, err := os.CreateTemp("", "umask")
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	f.Close()
	probe := f.Name() + ".p"
	defer os.Remove(probe)
	if err := os.WriteFile(probe, nil, 0o666); err != nil {
		return false
	}
	st, _ := os.Stat(probe)
	return st.Mode().Perm()&0o044 != 0
}

// dpaudit report on a folder without tables is bad input.
func TestReportWithoutTables(t *testing.T) {
	dir := t.TempDir()
	_, err := Report(dir, Options{})
	if !IsInputError(err) || !strings.Contains(err.Error(), "manifest.json") {
		t.Fatalf("want an input error naming manifest.json, got %v", err)
	}
}

// Every example's figures name columns its spec produces: loading a spec
// compiles its graph and checks its figures against the columns it will
// write (the examples are loaded once for every test, see
// examples_compile_test.go).
func TestExampleFiguresMatchColumns(t *testing.T) {
	n := 0
	for _, e := range loadExamples(t) {
		b, _ := os.ReadFile(e.path)
		if !bytes.Contains(b, []byte("\nreport:")) || skipUnfetched(t, e) {
			continue
		}
		n++
		if e.err != nil {
			t.Errorf("%s: %v", e.path, e.err)
		}
	}
	if n < 7 {
		t.Errorf("only %d examples have figures", n)
	}
}

// report.html renders in a real browser: headless Chromium takes a
// screenshot that is not blank and the DOM holds every figure. Skipped
// (loudly) without Chromium; DPAUDIT_REQUIRE_TOOLS=1 makes it fail.
func TestReportRendersInChromium(t *testing.T) {
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("DPAUDIT_REQUIRE_TOOLS") == "1" {
			t.Fatal("no Chromium found (chromium, chromium-browser, google-chrome) and DPAUDIT_REQUIRE_TOOLS=1")
		}
		t.Skip("SKIPPED: no headless Chromium on PATH (apt-get install chromium); report.html was not rendered")
	}
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	_, res := runSpec(t, writeSpec(t, dir, "figs.yaml", figureSpec), o)
	url := "file://" + res.Report
	shot := filepath.Join(dir, "shot.png")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,1600"}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, browser, append(args, "--screenshot="+shot, url)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	dark, total := 0, 0
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 4 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 4 {
			r, g, b, _ := img.At(x, y).RGBA()
			total++
			if r+g+b < 3*0xc000 {
				dark++
			}
		}
	}
	if float64(dark)/float64(total) < 0.005 {
		t.Errorf("the screenshot is blank (%d of %d sampled pixels not white)", dark, total)
	}
	dom, err := exec.CommandContext(ctx, browser, append(args, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(dom), `class="figure"`); n != 1 {
		t.Errorf("the rendered page has %d figures, want 1", n)
	}
	if n := strings.Count(string(dom), "<svg"); n < 1 {
		t.Errorf("the rendered page has no SVG")
	}
	checkLayoutInChromium(t, ctx, browser, res.Report)
}

// layoutProbe, appended to a copy of report.html, writes what the browser
// laid out into the DOM: the page's scroll width against the viewport
// (the summary must scroll inside its frame, not widen the page) and the
// drawn size of every figure.
const layoutProbe = `<script>
window.addEventListener("load", function () {
  var figs = Array.from(document.querySelectorAll("figure.figure")).map(function (f) {
    var r = f.querySelector("svg, img").getBoundingClientRect();
    return Math.round(r.width) + "x" + Math.round(r.height);
  });
  var wrap = document.querySelector(".scroll");
  document.body.setAttribute("data-layout", JSON.stringify({
    page: document.documentElement.scrollWidth, viewport: window.innerWidth,
    table: wrap ? wrap.scrollWidth : 0, frame: wrap ? wrap.clientWidth : 0, figures: figs}));
});
</script>`

// checkLayoutInChromium loads report.html in a 420 px wide window, where
// the summary is wider than the viewport: the page must not be wider than
// the window (the table scrolls in its frame) and every figure must have
// a drawn size.
func checkLayoutInChromium(t *testing.T, ctx context.Context, browser, report string) {
	t.Helper()
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(report), "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(string(page), "</body>", layoutProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--window-size=420,900", "--virtual-time-budget=5000", "--dump-dom", "file://" + probe}
	dom, err := exec.CommandContext(ctx, browser, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`data-layout="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatal("the layout probe did not run")
	}
	var got struct {
		Page, Viewport, Table, Frame int
		Figures                      []string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("layout at 420 px: %+v", got)
	if got.Page > got.Viewport {
		t.Errorf("the page is %d px wide in a %d px window: the summary table must scroll inside its frame", got.Page, got.Viewport)
	}
	if got.Table <= got.Frame {
		t.Errorf("the summary (%d px) fits its frame (%d px): the test no longer checks the scrolling", got.Table, got.Frame)
	}
	if len(got.Figures) == 0 {
		t.Error("no figure on the page")
	}
	for i, f := range got.Figures {
		var w, h int
		fmt.Sscanf(f, "%dx%d", &w, &h)
		if w < 100 || h < 50 {
			t.Errorf("figure %d is drawn %s px", i, f)
		}
	}
}

// An integer key derived by an expression (ceil returns a float) is an
// int64 column, like a literal one.
func TestDerivedIntegerIsInt64(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "int.yaml", `name: ints
vars: {epochs: 2}
dpsgd:
  noise_multiplier: 1
  sampling_rate: 0.01
  steps: "=ceil(epochs / dpsgd.sampling_rate)"
bound: [{kind: accountant, accountants: [gdp]}]
sweep: {grid: {epochs: [1, 3]}}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	tb, err := pipeline.ReadParquet(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	c := tb.Col("steps")
	if c == nil || c.Type != pipeline.Int64 || c.Values[1] != int64(300) {
		t.Fatalf("steps column %+v, want int64 [100 300]", c)
	}
}

// The trials tables of one folder share one schema: a score column a
// distinguisher does not produce is present and null.
func TestTrialsShareOneSchema(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "mix.yaml", `name: mix
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 60}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5, learning_rate: 0.5}
crafter: {kind: random_record}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, trials: 4}
sweep:
  zip:
    audit.threat_model: [api_access, gradient]
    crafter.kind: [random_record, gradient_canary]
    distinguisher.kind: [loss_threshold, watermark]
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "*", "*.parquet"))
	if len(parts) != 2 {
		t.Fatalf("%d trials parts", len(parts))
	}
	var first []string
	nulls := 0
	for _, p := range parts {
		tb, err := pipeline.ReadParquet(p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range tb.Columns {
			names = append(names, c.Name+":"+c.Type.String())
			if c.Values[0] == nil {
				nulls++
			}
		}
		if first == nil {
			first = names
		} else if strings.Join(first, ",") != strings.Join(names, ",") {
			t.Errorf("schemas differ:\n%v\n%v", first, names)
		}
	}
	if !strings.Contains(strings.Join(first, ","), "loss:float64") || !strings.Contains(strings.Join(first, ","), "llr:float64") || nulls < 4 {
		t.Errorf("schema %v with %d null columns; want loss and llr in both, null where not produced", first, nulls)
	}
}

// A violation puts a red banner with the point's parameters on the page.
func TestReportBannerListsViolations(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "bug.yaml", `name: bug
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 0.6, sampling_rate: 1, steps: 4}
audit: {threat_model: gradient, trials: 2000, claimed_noise_multiplier: 6}
sweep: {grid: {dpsgd.steps: [4, 5]}}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	html, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if !strings.Contains(page, `class="banner"`) || !strings.Contains(page, "PRIVACY VIOLATION: 2 of 2 point(s)") {
		t.Fatalf("no violation banner in report.html")
	}
	if !strings.Contains(page, "dpsgd.steps=5") || !strings.Contains(page, "claimed ε") || !strings.Contains(page, "claimed: ") || !strings.Contains(page, "σ=6,") || !strings.Contains(page, "trained: σ=0.6,") {
		t.Errorf("the banner does not name the point's parameters, the ε values, and what was claimed and trained")
	}
}
