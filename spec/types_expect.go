package spec

// Expect is one number a spec states about its own results: the value a
// summary column takes at one point, within a tolerance. Examples carry
// the numbers their comments quote in an expect block, and a test runs
// the examples and fails when a number drifts. Like report, the block is
// not part of a point's identity: editing it re-runs nothing.
type Expect struct {
	Column    string         `yaml:"column" required:"true" doc:"Summary column whose value is stated (checked against the columns the spec writes before anything runs)."`
	At        map[string]any `yaml:"at" doc:"The point: values of swept or derived columns, e.g. {target_epsilon: 2, epochs: 15}; it must select exactly one point (may be left out when the spec has one point)."`
	Value     float64        `yaml:"value" required:"true" doc:"The value this machine measured."`
	Tolerance float64        `yaml:"tolerance" required:"true" check:">=0" doc:"Largest accepted |measured − value|: the seed spread where the number is random, else the rounding of the stated digits."`
}
