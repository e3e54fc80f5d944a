package contracttest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/contracttest"
)

func table(t *testing.T, what string) map[string]contracttest.Field {
	t.Helper()
	tables, err := contracttest.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if len(tables[what]) == 0 {
		t.Fatalf("fields.json has no keys for %s", what)
	}
	return tables[what]
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	path, err := contracttest.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The orchestrator's own golden documents pass: the checker is not stricter
// than the contract.
func TestGoldenDocumentsPass(t *testing.T) {
	cases := map[string]string{"result.json": "drive_result", "ready.json": "ready"}
	specs, err := contracttest.Specs()
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range specs {
		cases[filepath.Base(spec)] = "drive_spec"
	}
	for name, what := range cases {
		if problems := contracttest.Problems(table(t, what), golden(t, name)); len(problems) > 0 {
			t.Errorf("%s: %v", name, problems)
		}
	}
}

// Each way to break the ready table is found, and named.
func TestProblemsFindsEachBreach(t *testing.T) {
	ready := table(t, "ready")
	cases := map[string]string{
		`{"event": "ready", "port": 1, "pid": 2, "contract": 1}`: "",
		`{"event": "ready", "pid": 2}`:                           `required key "port" missing`,
		`{"event": "ready", "port": 1, "pid": 2, "extra": 0}`:    `key "extra" is not in the contract: drop it, or add it to src/rpcarena/contract.py`,
		`{"event": "ready", "port": 1.5, "pid": 2}`:              `key "port" is number, want integer`,
		`{"event": "ready", "port": 1e3, "pid": 2}`:              `key "port" is number, want integer`,
		`{"event": "ready", "port": "1", "pid": 2}`:              `key "port" is string, want integer`,
		`{"event": null, "port": 1, "pid": 2}`:                   `key "event" is null, want string`,
		`[]`:                                                     "not a JSON object",
	}
	for doc, want := range cases {
		got := contracttest.Problems(ready, []byte(doc))
		if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], want)) {
			t.Errorf("%s: %q, want %q", doc, got, want)
		}
	}
}

// Integers are numbers; null passes only where nullable.
func TestProblemsKnowsNumbersAndNulls(t *testing.T) {
	result := table(t, "drive_result")
	doc := `{"calls": 1, "errors": {}, "wall_s": 1, "cpu_user_s": 0.5, "cpu_sys_s": 2e-3,
		"histogram": "x", "samples": [], "tool": {}, "histogram_uncorrected": null, "late_calls": null}`
	got := contracttest.Problems(result, []byte(doc))
	if want := []string{`key "late_calls" is null, want integer`}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}
