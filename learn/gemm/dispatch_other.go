//go:build !amd64 || purego

package gemm

// detectAsm: no assembly kernels on this architecture or with the purego tag.
func detectAsm() []*arch { return nil }
