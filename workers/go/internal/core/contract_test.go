package core_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rpcarena/workers/go/internal/contracttest"
	"rpcarena/workers/go/internal/core"
)

// pythonOnly are drive_spec keys that only the Python drivers read: which Python
// client to use. ReadSpec ignores them.
var pythonOnly = map[string]bool{"client": true}

// Every golden spec parses with the worker's own ReadSpec, and every key the Go
// worker reads comes out with the file's value (through Spec's own json tags).
func TestGoldenSpecsParseToTheirValues(t *testing.T) {
	paths, err := contracttest.Specs()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			spec, _, err := core.ReadSpec(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("ReadSpec refuses a spec the orchestrator writes: %v", err)
			}
			parsed, _ := json.Marshal(spec)
			want, got := object(t, data), object(t, parsed)
			for key, value := range want {
				if !pythonOnly[key] && !reflect.DeepEqual(got[key], value) {
					t.Errorf("%s: parsed %v, file %v", key, got[key], value)
				}
			}
			checkDurations(t, spec, want)
		})
	}
}

// checkDurations: the drive loop reads times through these, in their units.
func checkDurations(t *testing.T, spec *core.Spec, file map[string]any) {
	t.Helper()
	duration := time.Duration(0)
	if s, ok := file["duration_s"].(float64); ok {
		duration = time.Duration(s * 1e9)
	}
	if spec.Timeout() != time.Duration(file["timeout_ms"].(float64))*time.Millisecond ||
		spec.Warmup() != time.Duration(file["warmup_s"].(float64)*1e9) || spec.Duration() != duration {
		t.Errorf("timeout %v, warmup %v, duration %v; file %v ms, %v s, %v s", spec.Timeout(), spec.Warmup(),
			spec.Duration(), file["timeout_ms"], file["warmup_s"], file["duration_s"])
	}
}

// Spec and the contract's drive_spec table have the same keys, both ways, but
// the Python-only ones: a key added on either side shows here.
func TestSpecReadsEveryContractKey(t *testing.T) {
	tables, err := contracttest.Fields()
	if err != nil {
		t.Fatal(err)
	}
	table, read := tables["drive_spec"], specKeys()
	for key := range table {
		if !read[key] && !pythonOnly[key] {
			t.Errorf("drive_spec key %q: read it in core.Spec (internal/core/spec.go), or list it in pythonOnly", key)
		}
	}
	for key := range read {
		if _, ok := table[key]; !ok {
			t.Errorf("core.Spec reads %q, which src/rpcarena/contract.py does not have", key)
		}
	}
}

func specKeys() map[string]bool {
	keys := map[string]bool{}
	spec := reflect.TypeFor[core.Spec]()
	for i := range spec.NumField() {
		keys[strings.Split(spec.Field(i).Tag.Get("json"), ",")[0]] = true
	}
	return keys
}

func object(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
