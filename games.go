package dpaudit

import (
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/bound"
	"github.com/dpaudit/dpaudit/stages/figure"
	"github.com/dpaudit/dpaudit/stages/glm"
	"github.com/dpaudit/dpaudit/stages/identify"
	"github.com/dpaudit/dpaudit/stages/membership"
	"github.com/dpaudit/dpaudit/stages/recon"
	"github.com/dpaudit/dpaudit/stages/scores"
	"github.com/dpaudit/dpaudit/stages/train"
)

// games are the registered games, in the order they compile a point (and
// their nodes enter the graph). Adding a game is one line here.
var games = []*stages.Game{
	train.Game,
	membership.Classic,
	membership.LastIterate,
	membership.OneRun,
	membership.PerStep,
	membership.Sequential,
	glm.Game,
	identify.Game,
	bound.Game,
	recon.Game,
	scores.Game,
}

// KnownKinds are the node kinds --force accepts: every kind a registered
// game can produce, the summary and the figures.
var KnownKinds = append(stages.Kinds(games), figure.Kind)
