package privacy

import "golang.org/x/sys/unix"

// physicalMemory returns the machine's RAM in bytes, 0 if unknown.
func physicalMemory() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(max(si.Unit, 1))
}
