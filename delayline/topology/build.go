package topology

import (
	"path/filepath"
	"time"
)

// BuildDelayLine builds the delayline command into dir (for tests and benchmarks,
// which run from inside this module) and returns its path.
func BuildDelayLine(dir string) (string, error) {
	binary := filepath.Join(dir, "delayline")
	cmd, cancel := command(3*time.Minute, "go", "build", "-o", binary, "rpcarena/delayline/cmd/delayline")
	defer cancel()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err, trim(out)}
	}
	return binary, nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build ./cmd/delayline: " + e.err.Error() + ": " + e.out
}
