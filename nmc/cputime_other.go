//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package nmc

import "time"

// processCPU reports that the platform gives no CPU time of the process.
func processCPU() (time.Duration, bool) { return 0, false }
