package dpaudit

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// duckdbScript describes and counts tables with DuckDB's own Parquet
// reader: the trials glob is read with hive_partitioning and without
// union_by_name, so it only works when every part has one schema.
const duckdbScript = `
const { DuckDBInstance } = require(process.env.DUCKDB_MODULE);
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const out = {};
  for (const [name, src] of JSON.parse(process.env.TABLES)) {
    const from = "read_parquet('" + src + "', hive_partitioning = true)";
    const cols = (await con.runAndReadAll('DESCRIBE SELECT * FROM ' + from)).getRowObjectsJson();
    const n = (await con.runAndReadAll('SELECT count(*) AS n FROM ' + from)).getRowObjectsJson();
    const sch = (await con.runAndReadAll("SELECT count(DISTINCT cols) AS n FROM (SELECT file_name, string_agg(name || ':' || coalesce(type, ''), ',') AS cols FROM parquet_schema('" + src + "') GROUP BY file_name)")).getRowObjectsJson();
    out[name] = { rows: Number(n[0].n), schemas: Number(sch[0].n), columns: cols.map(c => [c.column_name, c.column_type]) };
  }
  console.log(JSON.stringify(out));
})().catch(e => { console.error(String(e)); process.exit(1); });
`

// duckdbModule finds @duckdb/node-api as scripts/ci-deps-figures.sh
// installs it.
func duckdbModule(t *testing.T) (node, module string) {
	tools := os.Getenv("DPAUDIT_TOOLS")
	if tools == "" {
		home, _ := os.UserHomeDir()
		tools = filepath.Join(home, ".cache", "dpaudit", "tools")
	}
	module = filepath.Join(tools, "node_modules", "@duckdb", "node-api")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(module); err != nil || serr != nil {
		msg := "SKIPPED: DuckDB (npm @duckdb/node-api under " + tools + ") or node is missing; install with scripts/ci-deps-figures.sh"
		if os.Getenv("DPAUDIT_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg + " (DPAUDIT_REQUIRE_TOOLS=1)")
		}
		t.Skip(msg)
	}
	return node, module
}

// documentedTypes reads the column types docs/tables.md gives.
func documentedTypes(t *testing.T) map[string]string {
	b, err := os.ReadFile("docs/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile("`([a-z_][a-z0-9_]*)`")
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			continue
		}
		typ := strings.TrimSpace(cells[2])
		if typ != "float64" && typ != "int64" && typ != "string" && typ != "bool" {
			continue
		}
		names := tick.FindAllStringSubmatch(cells[1], -1)
		if strings.TrimSpace(cells[1]) == "score columns" {
			names = tick.FindAllStringSubmatch(cells[3], -1)
		}
		for _, m := range names {
			out[m[1]] = typ
		}
	}
	return out
}

var duckType = map[string]string{"float64": "DOUBLE", "int64": "BIGINT", "string": "VARCHAR", "bool": "BOOLEAN"}

// An independent reader (DuckDB) opens the summary and every trials table
// of a results folder — the trials glob without union_by_name — with the
// row counts we wrote and the column types docs/tables.md documents.
func TestTablesReadableByDuckDB(t *testing.T) {
	node, module := duckdbModule(t)
	dir := t.TempDir()
	path := writeSpec(t, dir, "duck.yaml", `name: duck
seed: 3
dataset: {source: digits, classes: [0, 1], train_size: 60}
model: {arch: logreg}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 5, learning_rate: 0.5}
crafter: {kind: random_record}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, trials: 6}
bound: [{kind: accountant}, {kind: risk}]
sweep:
  zip:
    audit.threat_model: [api_access, gradient, intermediate_poison]
    crafter.kind: [random_record, gradient_canary, static_poison]
    distinguisher.kind: [loss_threshold, watermark, intermediate_loss]
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	got := duckdbDescribe(t, node, module, [][2]string{{"summary", res.Summary}, {"trials", filepath.Join(res.Dir, "trials", "*", "*.parquet")}})
	doc := documentedTypes(t)
	sum, _ := pipeline.ReadParquet(res.Summary)
	if got["summary"].Rows != sum.Rows() || got["trials"].Rows != 18 {
		t.Errorf("DuckDB counts %d summary rows and %d trials, want %d and 18", got["summary"].Rows, got["trials"].Rows, sum.Rows())
	}
	if n := got["trials"].Schemas; n != 1 {
		t.Errorf("the trials parts have %d different schemas, want one", n)
	}
	checked := 0
	for _, name := range []string{"summary", "trials"} {
		for _, c := range got[name].Columns {
			if c[0] == "point" { // the Hive partition key
				continue
			}
			if want, ok := doc[c[0]]; ok {
				checked++
				if duckType[want] != c[1] {
					t.Errorf("%s.%s: DuckDB reads %s, docs/tables.md says %s", name, c[0], c[1], want)
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d columns are documented in docs/tables.md", checked)
	}
}

// duckDescription is what duckdbScript says of one table.
type duckDescription struct {
	Rows    int         `json:"rows"`
	Schemas int         `json:"schemas"`
	Columns [][2]string `json:"columns"`
}

// duckdbDescribe runs duckdbScript on the named tables (name, file or
// glob).
func duckdbDescribe(t *testing.T, node, module string, tables [][2]string) map[string]duckDescription {
	t.Helper()
	tj, _ := json.Marshal(tables)
	cmd := exec.Command(node, "-e", duckdbScript)
	cmd.Env = append(os.Environ(), "DUCKDB_MODULE="+module, "TABLES="+string(tj))
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("duckdb: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got map[string]duckDescription
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return got
}

// The summary of a spec that audits score tables (examples/scores): every
// column DuckDB reads has the type docs/tables.md documents, and the
// columns only that game writes are documented.
func TestScoreTablesReadableByDuckDB(t *testing.T) {
	node, module := duckdbModule(t)
	dir := t.TempDir()
	_, res := runSpec(t, filepath.Join("examples", "scores", "gaussian-tables.yaml"), Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	got := duckdbDescribe(t, node, module, [][2]string{{"summary", res.Summary}})["summary"]
	doc := documentedTypes(t)
	if got.Rows != 3 {
		t.Errorf("DuckDB counts %d rows, want 3", got.Rows)
	}
	seen := map[string]bool{}
	for _, c := range got.Columns {
		seen[c[0]] = true
		if want, ok := doc[c[0]]; ok && duckType[want] != c[1] {
			t.Errorf("summary.%s: DuckDB reads %s, docs/tables.md says %s", c[0], c[1], want)
		}
	}
	for _, name := range []string{"scores_file", "scores_sha256", "split_seed", "layout", "estimate_aggregate", "estimate_delta", "estimate_lower_is_member"} {
		if !seen[name] {
			t.Errorf("the summary has no column %s", name)
		}
		if _, ok := doc[name]; !ok {
			t.Errorf("docs/tables.md does not document %s", name)
		}
	}
}
