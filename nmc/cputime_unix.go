//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package nmc

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time, user plus system, that the process has used
// so far (getrusage(RUSAGE_SELF)), and whether the platform reports it.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
