// Package contracttest holds the Go worker's tests to the golden documents of
// proto/contract/, which tools/gen_contract.py writes from the orchestrator's
// own typed contract (src/rpcarena/contract.py): a document that passes Check
// is one the orchestrator parses.
package contracttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/vectors"
)

// Dir is where the golden documents live from the repository's root.
const Dir = "proto/contract"

// Field is one key of a document in fields.json.
type Field struct {
	JSON     string `json:"json"` // integer, number, string, boolean, object or array
	Nullable bool   `json:"nullable"`
	Required bool   `json:"required"`
}

// Path is the path of a golden file ("fields.json").
func Path(name string) (string, error) {
	dir, err := vectors.FindUp(Dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Specs are the paths of the golden drive specs, spec.*.json; none is an error.
func Specs() ([]string, error) {
	pattern, err := Path("spec.*.json")
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(pattern)
	if err == nil && len(paths) == 0 {
		err = fmt.Errorf("no %s: run tools/gen_contract.py", pattern)
	}
	return paths, err
}

// Fields reads fields.json: document ("drive_spec", "drive_result", "ready") to key to Field.
func Fields() (map[string]map[string]Field, error) {
	path, err := Path("fields.json")
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tables map[string]map[string]Field
	if err := json.Unmarshal(data, &tables); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return tables, nil
}

// Check fails t with every way doc (one JSON object) breaks the table of the
// document named what in fields.json.
func Check(t testing.TB, what string, doc []byte) {
	t.Helper()
	tables, err := Fields()
	if err != nil {
		t.Fatal(err)
	}
	table, ok := tables[what]
	if !ok {
		t.Fatalf("fields.json has no document %q", what)
	}
	for _, problem := range Problems(table, doc) {
		t.Errorf("%s: %s\n\tin %s", what, problem, bytes.TrimSpace(doc))
	}
}

// Problems lists how doc breaks table, as the orchestrator would refuse it: a
// missing required key, a key the table lacks, a value of another JSON kind,
// or null where the key is not nullable.
func Problems(table map[string]Field, doc []byte) []string {
	var values map[string]json.RawMessage
	if err := json.Unmarshal(doc, &values); err != nil {
		return []string{fmt.Sprintf("not a JSON object: %v", err)}
	}
	var problems []string
	for _, key := range slices.Sorted(maps.Keys(table)) {
		if _, ok := values[key]; !ok && table[key].Required {
			problems = append(problems, fmt.Sprintf("required key %q missing", key))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		field, ok := table[key]
		if !ok {
			problems = append(problems, fmt.Sprintf("key %q is not in the contract: drop it, or add it to src/rpcarena/contract.py", key))
		} else if got := kindOf(values[key]); got != field.JSON && !(got == "null" && field.Nullable) &&
			!(got == "integer" && field.JSON == "number") {
			problems = append(problems, fmt.Sprintf("key %q is %s, want %s", key, got, field.JSON))
		}
	}
	return problems
}

// kindOf names the JSON kind of a value as Python's json module reads it: a
// number with a fraction or an exponent is a float, not an integer.
func kindOf(raw json.RawMessage) string {
	switch raw[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	if strings.ContainsAny(string(raw), ".eE") {
		return "number"
	}
	return "integer"
}
