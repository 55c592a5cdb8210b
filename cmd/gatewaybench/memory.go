package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used so far,
// 0 if unknown.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS restarts the kernel's peak resident set size (VmHWM) at the
// current one, so that a run's peak is its own (Linux 4.0 and later). It
// reports whether that worked; where it did not, peaks are since start.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is the process's peak resident set size in bytes, 0 if unknown.
func peakRSS() int64 { return procStatus("VmHWM:") }

// currentRSS is the process's resident set size in bytes, 0 if unknown.
func currentRSS() int64 { return procStatus("VmRSS:") }

// procStatus reads a "kB" field of /proc/self/status.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(field)) {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line[len(field):]), []byte(" kB"))), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// mib formats bytes as MiB.
func mib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }
