package spec

// ReconGLM is the informed adversary's closed-form GLM reconstruction.
type ReconGLM struct {
	Releases int `yaml:"releases" default:"1" check:">=1" doc:"Independent releases per target, averaged."`
}
