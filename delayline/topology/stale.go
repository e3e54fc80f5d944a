package topology

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

var (
	nameRe    = regexp.MustCompile(`^` + Prefix + `([0-9]+)-[0-9]+-(client|router|server)$`)
	tempDirRe = regexp.MustCompile(`^` + Prefix + `([0-9]+)-delayline-[0-9]+$`)
)

// TempDir makes a scratch folder (for a built delayline) that CleanupStale removes
// if this process dies before it does.
func TempDir() (string, error) {
	return os.MkdirTemp("", fmt.Sprintf("%s%d-delayline-", Prefix, os.Getpid()))
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// CleanupStale deletes the namespaces (and kills the processes inside them) and the
// TempDir folders of processes that are dead, and returns what it removed.
func CleanupStale() ([]string, error) {
	var removed []string
	var errs []error
	for _, ns := range staleEntries("/run/netns", nameRe) {
		removed = append(removed, ns)
		errs = append(errs, deleteNamespace(ns))
	}
	for _, dir := range staleEntries(os.TempDir(), tempDirRe) {
		removed = append(removed, filepath.Join(os.TempDir(), dir))
		errs = append(errs, os.RemoveAll(filepath.Join(os.TempDir(), dir)))
	}
	return removed, errors.Join(errs...)
}

// staleEntries lists the names in dir that match re and whose pid (re's first group) is dead.
func staleEntries(dir string, re *regexp.Regexp) []string {
	entries, _ := os.ReadDir(dir) // no such folder: nothing stale
	var out []string
	for _, e := range entries {
		if m := re.FindStringSubmatch(e.Name()); m != nil {
			if pid, err := strconv.Atoi(m[1]); err == nil && pid > 0 && !alive(pid) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// killAll SIGKILLs the pids listed one a line (from `ip netns pids`).
func killAll(pids []byte) {
	for _, field := range strings.Fields(string(pids)) {
		if pid, err := strconv.Atoi(field); err == nil && pid > 1 && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
