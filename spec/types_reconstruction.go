package spec

// Reconstruction selects a reconstruction attack. The branches live in
// their own files: the prior-aware attacks of Hayes et al. (2023) in
// types_recon_prior.go, the GLM attack of Balle et al. as used by Guo et
// al. (2022) and Mukherjee & Lokam (2023) in types_recon_glm.go.
type Reconstruction struct {
	Attack     string           `yaml:"attack" discriminator:"true" doc:"Reconstruction attack."`
	PriorAware *ReconPriorAware `kind:"prior_aware" doc:"Prior-aware reconstruction among candidates (Hayes, Mahloujifar & Balle 2023, Algorithm 2)."`
	GLM        *ReconGLM        `kind:"glm" doc:"Closed-form reconstruction of a training input from a released generalised linear model (Balle et al. 2022; Guo et al. 2022; Mukherjee & Lokam 2023)."`
	Inversion  *ReconInversion  `kind:"gradient_inversion" doc:"Gradient-based prior-oblivious reconstruction (Hayes et al. 2023 Eq. 1), scored by the nearest candidate of a prior."`
}
