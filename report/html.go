package report

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/dpaudit/dpaudit/pipeline"
)

// Page is everything report.html shows. The caller decides what is a
// violation; the page only shows the banner it is given.
type Page struct {
	Title       string
	Description string
	BannerTitle string   // e.g. "PRIVACY VIOLATION"
	Banner      []string // one line per offending row; empty: no banner
	Figures     []PageFigure
	Panels      []PagePanel     // small tables the caller composed, above the figures
	Table       *pipeline.Table // the summary, shown in full
	// Groups order the summary's columns under group headers (e.g.
	// parameters, accountant, estimates, bounds); a column in no group
	// goes under "other". The first column stays visible while the table
	// scrolls sideways.
	Groups     []ColumnGroup
	Provenance [][2]string // label, value
}

// ColumnGroup is a header over some of the summary's columns.
type ColumnGroup struct {
	Name    string
	Columns []string
}

// PageFigure is one figure: inline SVG (or PNG when no SVG was drawn).
type PageFigure struct {
	Name, Title string
	SVG, PNG    []byte
	Files       []string // links relative to the page
	Notes       []string
}

// PagePanel is a small table of text the caller composed (the page does
// not know what it says): a title, a paragraph above, rows of cells, notes
// below.
type PagePanel struct {
	ID, Title, Intro string
	Header           []string
	Rows             [][]string
	Notes            []string
}

var prolog = regexp.MustCompile(`^(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?`)

// WriteHTML writes one self-contained page: figures inlined, no network,
// a few lines of plain JavaScript to sort the table by a column.
func WriteHTML(w io.Writer, p Page) error {
	type fig struct {
		Name, Title string
		Body        template.HTML
		Files       []string
		Notes       []string
	}
	type row struct{ Cells []cell }
	data := struct {
		Page
		Figs     []fig
		GroupRow []headGroup
		Header   []string
		Rows     []row
	}{Page: p}
	for _, f := range p.Figures {
		var body template.HTML
		switch {
		case len(f.SVG) > 0:
			// Our own SVG from gonum/plot: text is escaped by vgsvg.
			body = template.HTML(prolog.ReplaceAll(f.SVG, nil))
		case len(f.PNG) > 0:
			body = template.HTML(`<img alt="` + template.HTMLEscapeString(f.Name) + `" src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(f.PNG) + `">`)
		}
		data.Figs = append(data.Figs, fig{Name: f.Name, Title: firstNonEmpty(f.Title, f.Name), Body: body, Files: f.Files, Notes: f.Notes})
	}
	if t := p.Table; t != nil {
		cols, groups := groupColumns(t, p.Groups)
		data.GroupRow = groups
		for _, c := range cols {
			data.Header = append(data.Header, c.Name)
		}
		for i := 0; i < t.Rows(); i++ {
			var r row
			for _, c := range cols {
				r.Cells = append(r.Cells, formatCell(c.Values[i]))
			}
			data.Rows = append(data.Rows, r)
		}
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// headGroup is one cell of the group header row.
type headGroup struct {
	Name string
	Span int
}

// groupColumns orders the table's columns: the first column, then each
// group's columns in the group's order, then the rest under "other".
func groupColumns(t *pipeline.Table, groups []ColumnGroup) ([]*pipeline.Column, []headGroup) {
	if len(groups) == 0 || len(t.Columns) == 0 {
		return t.Columns, nil
	}
	used := map[string]bool{t.Columns[0].Name: true}
	cols := []*pipeline.Column{t.Columns[0]}
	heads := []headGroup{{Name: "", Span: 1}}
	for _, g := range groups {
		n := 0
		for _, name := range g.Columns {
			if c := t.Col(name); c != nil && !used[name] {
				used[name] = true
				cols = append(cols, c)
				n++
			}
		}
		if n > 0 {
			heads = append(heads, headGroup{g.Name, n})
		}
	}
	n := 0
	for _, c := range t.Columns {
		if !used[c.Name] {
			cols = append(cols, c)
			n++
		}
	}
	if n > 0 {
		heads = append(heads, headGroup{"other", n})
	}
	return cols, heads
}

type cell struct {
	Text string
	Sort string // numeric sort key, empty for text
}

func formatCell(v any) cell {
	switch x := v.(type) {
	case nil:
		return cell{Text: "null"}
	case float64:
		s := strconv.FormatFloat(x, 'g', 6, 64)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return cell{Text: s}
		}
		return cell{Text: s, Sort: strconv.FormatFloat(x, 'g', -1, 64)}
	case int64:
		return cell{Text: strconv.FormatInt(x, 10), Sort: strconv.FormatInt(x, 10)}
	case bool:
		return cell{Text: strconv.FormatBool(x)}
	case string:
		return cell{Text: x}
	}
	return cell{}
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} — dpaudit report</title>
<style>
body { font-family: Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
.desc { white-space: pre-wrap; color: #444; }
.banner { background: #c62828; color: #fff; padding: 0.8em 1.2em; border-radius: 4px; margin: 1em 0; }
.banner h2 { margin: 0 0 0.4em 0; font-size: 1.2em; }
.banner li { font-family: monospace; white-space: pre-wrap; }
figure { margin: 1.5em 0; }
figure svg, figure img { width: 100%; max-width: 860px; height: auto; display: block; }
figcaption { color: #555; font-size: 0.9em; }
.notes { color: #8a6d00; }
.panel p { font-size: 0.9em; } .pnote { color: #555; }
.scroll { overflow: auto; max-width: 100%; max-height: 80vh; border: 1px solid #ccc; }
table { border-collapse: separate; border-spacing: 0; font-size: 0.8em; }
th, td { border-right: 1px solid #ccc; border-bottom: 1px solid #ccc; padding: 2px 6px; text-align: right; white-space: nowrap; background: #fff; }
th { background: #f0f0f0; cursor: pointer; position: sticky; top: 0; z-index: 1; }
tr.groups th { cursor: default; text-align: center; background: #e0e6ef; }
tr.groups + tr th { top: 1.6em; }
th:first-child, td:first-child { position: sticky; left: 0; z-index: 2; background: #f7f7f7; }
th:first-child { z-index: 3; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; font-size: 0.9em; }
dt { font-weight: bold; } dd { margin: 0; font-family: monospace; word-break: break-all; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Description}}<p class="desc">{{.Description}}</p>{{end}}
{{if .Banner}}<div class="banner" id="violations"><h2>{{.BannerTitle}}</h2><ul>{{range .Banner}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{range .Panels}}<section class="panel" id="{{.ID}}"><h2>{{.Title}}</h2>
{{if .Intro}}<p>{{.Intro}}</p>{{end}}
{{if .Header}}<div class="scroll"><table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
{{range .Notes}}<p class="pnote">{{.}}</p>{{end}}</section>
{{end}}
{{range .Figs}}<figure class="figure" id="fig-{{.Name}}">
{{.Body}}
<figcaption>{{.Name}}{{range .Files}} · <a href="figures/{{.}}">{{.}}</a>{{end}}{{range .Notes}}<br><span class="notes">{{.}}</span>{{end}}</figcaption>
</figure>
{{end}}
{{if .Header}}<h2>Summary</h2>
<p>One row per point (results/…/summary.parquet). Click a column to sort.</p>
<div class="scroll"><table id="summary"><thead>{{if .GroupRow}}<tr class="groups">{{range .GroupRow}}<th colspan="{{.Span}}">{{.Name}}</th>{{end}}</tr>{{end}}<tr class="names">{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .Cells}}<td{{if .Sort}} data-v="{{.Sort}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
<h2>Provenance</h2>
<dl>{{range .Provenance}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
<script>
document.querySelectorAll("#summary tr.names th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], rows = Array.from(body.rows);
    var asc = th.dataset.asc !== "1"; th.dataset.asc = asc ? "1" : "0";
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col], r;
      if (x.dataset.v !== undefined && y.dataset.v !== undefined) r = x.dataset.v - y.dataset.v;
      else r = x.textContent.localeCompare(y.textContent);
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
</script>
</body>
</html>
`))
