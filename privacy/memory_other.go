//go:build !linux

package privacy

// physicalMemory returns 0 (unknown) where the RAM is not read: the PLD
// accountant then keeps the old cap of MaxPMFLen points.
func physicalMemory() int64 { return 0 }
