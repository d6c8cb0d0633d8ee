package spec

// ReconPriorAware is the prior-aware reconstruction game of Hayes et al.
type ReconPriorAware struct {
	PriorSize int `yaml:"prior_size" default:"10" check:">=2" doc:"|π|: candidates in the prior."`
	Trials    int `yaml:"trials" default:"1000" check:">=1" doc:"Trials of the reconstruction game."`
}
