package cli_test

import (
	"encoding/json"
	"testing"

	"rpcarena/workers/go/internal/contracttest"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/registry"
)

// What the worker really prints is what the orchestrator parses (fields.json):
// every contender's ready line, and the result of a short drive of its own
// client against its own server.
func TestReadyLinesAndResultsFollowTheContract(t *testing.T) {
	for _, c := range registry.All {
		if c.NewServer == nil || c.NewClient == nil {
			continue
		}
		target, ready := serveReady(t, c.ID)
		contracttest.Check(t, "ready", ready)
		line := driveOK(t, spec(c.ID, target, "Void", map[string]any{"calls": 20, "warmup_s": 0, "sync": true}))
		contracttest.Check(t, "drive_result", line)
	}
}

// The keys that only some runs fill: histogram_uncorrected (open loop), and
// error_examples with errors (a server that is down).
func TestOpenLoopAndFailedResultsFollowTheContract(t *testing.T) {
	target := serve(t, "grpc-go")
	openLoop := driveOK(t, spec("grpc-go", target, "Invert", map[string]any{"calls": 20, "warmup_s": 0, "rate_per_s": 2000}))
	down := driveOK(t, spec("tcp-raw-go", freeTarget(t), "Void", map[string]any{"calls": 20, "warmup_s": 0}))
	var open, failed core.Result
	if json.Unmarshal(openLoop, &open) != nil || open.HistogramUncorrected == nil ||
		json.Unmarshal(down, &failed) != nil || len(failed.ErrorExamples) == 0 {
		t.Fatalf("these runs no longer fill the keys under test: %s\n%s", openLoop, down)
	}
	contracttest.Check(t, "drive_result", openLoop)
	contracttest.Check(t, "drive_result", down)
}

func driveOK(t *testing.T, spec map[string]any) []byte {
	t.Helper()
	line, code, stderr := driveLine(t, spec)
	if code != 0 {
		t.Fatalf("drive exited %d: %s", code, stderr)
	}
	return line
}
