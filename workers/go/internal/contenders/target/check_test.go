package target

import (
	"encoding/json"
	"strings"
	"testing"
)

func decoded(t *testing.T, text string) any {
	t.Helper()
	v, err := decodeJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// `xs~=[1, 2, 2]`: the same items, each as often, in any order (checks.py's _any_order).
func TestAListInAnyOrderWithRepeats(t *testing.T) {
	checks, err := decodeChecks([]json.RawMessage{json.RawMessage(`[["xs", [1, 2, 2], "any_order"], ["n", 3]]`)})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		`{"xs": [2, 1, 2], "n": 3}`:    true,
		`{"xs": [2, 2, 1.0], "n": 3}`:  true, // items compare as replies do: 1.0 is 1
		`{"xs": [2, 1, 1], "n": 3}`:    false,
		`{"xs": [1, 2], "n": 3}`:       false,
		`{"xs": [1, 2, 2, 2], "n": 3}`: false,
		`{"xs": [2, 1, 2], "n": 4}`:    false,
		`{"xs": {"a": 1}, "n": 3}`:     false,
		`{"n": 3}`:                     false,
	}
	for reply, want := range cases {
		if got := holds(decoded(t, reply), checks[0]); got != want {
			t.Errorf("%s: holds %v, want %v", reply, got, want)
		}
	}
	if got := explain(decoded(t, `{"xs": [1], "n": 3}`), checks[0]); got != "xs: got [1], want [1,2,2] in any order" {
		t.Errorf("explain: %q", got)
	}
}

func TestObjectsInAnyOrder(t *testing.T) {
	checks, err := decodeChecks([]json.RawMessage{json.RawMessage(
		`[["$", [{"k": "a", "v": "1"}, {"k": "b"}], "any_order"]]`)})
	if err != nil {
		t.Fatal(err)
	}
	if !holds(decoded(t, `[{"k": "b", "v": ""}, {"k": "a", "v": 1}]`), checks[0]) {
		t.Error("map entries in another order, an int64 as text and a default value should hold")
	}
}

func TestBadChecksAreRefused(t *testing.T) {
	for raw, want := range map[string]string{
		`[["xs", [1], "sorted"]]`:         "a check is [path, value] or [path, list",
		`[["xs", 1, "any_order"]]`:        "compares a list",
		`[["xs"]]`:                        "a check is [path, value]",
		`[["xs", [1], "any_order", "x"]]`: "a check is [path, value]",
	} {
		_, err := decodeChecks([]json.RawMessage{json.RawMessage(raw)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}
