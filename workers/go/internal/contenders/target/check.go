package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// tolerance of doubles, as src/rpcarena/protocol/replies.py compares them.
const tolerance = 1e-9

// check is one `--expect-json PATH=VALUE` (or `PATH~=[...]`, a list in any
// order), its value rendered for one request.
type check struct {
	path     string
	want     any
	anyOrder bool
}

// anyOrder is a rendered check's third item: its list compared in any order.
const anyOrder = "any_order"

// decodeChecks reads the spec's responses: for each request, its [path, value]
// and [path, list, "any_order"] checks.
func decodeChecks(responses []json.RawMessage) ([][]check, error) {
	out := make([][]check, len(responses))
	for i, raw := range responses {
		var items [][]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("responses[%d]: want a list of [path, value] checks: %v", i, err)
		}
		for _, item := range items {
			c, err := decodeCheck(item)
			if err != nil {
				return nil, fmt.Errorf("responses[%d]: %v", i, err)
			}
			out[i] = append(out[i], c)
		}
	}
	return out, nil
}

func decodeCheck(item []json.RawMessage) (check, error) {
	var c check
	var mode string
	if len(item) < 2 || len(item) > 3 || json.Unmarshal(item[0], &c.path) != nil ||
		(len(item) == 3 && (json.Unmarshal(item[2], &mode) != nil || mode != anyOrder)) {
		return c, fmt.Errorf("a check is [path, value] or [path, list, %q], got %s", anyOrder, compact(item))
	}
	want, err := decodeJSON(item[1])
	if err != nil {
		return c, err
	}
	c.want, c.anyOrder = want, mode == anyOrder
	if _, isList := want.([]any); c.anyOrder && !isList {
		return c, fmt.Errorf("an %q check compares a list, got %s", anyOrder, item[1])
	}
	return c, nil
}

// decodeJSON keeps numbers as written (json.Number): int64 stays exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// holds reports whether every check holds for a decoded reply.
func holds(reply any, checks []check) bool {
	for _, c := range checks {
		got, ok := dig(reply, c.path)
		if !ok || !c.holds(got) {
			return false
		}
	}
	return true
}

// explain says which check a reply fails: its path, what it got, what was wanted.
func explain(reply any, checks []check) string {
	for _, c := range checks {
		got, ok := dig(reply, c.path)
		if !ok {
			return fmt.Sprintf("%s: missing, want %s", c.path, c.wanted())
		}
		if !c.holds(got) {
			return fmt.Sprintf("%s: got %s, want %s", c.path, compact(got), c.wanted())
		}
	}
	return "every check holds"
}

func (c check) wanted() string {
	if c.anyOrder {
		return compact(c.want) + " in any order"
	}
	return compact(c.want)
}

func (c check) holds(got any) bool {
	if c.anyOrder {
		return sameItems(got, c.want.([]any))
	}
	return equivalent(got, c.want)
}

// sameItems is checks.py's _any_order: a list of the same items as want, each
// as often, in any order.
func sameItems(got any, want []any) bool {
	left, ok := got.([]any)
	if !ok || len(left) != len(want) {
		return false
	}
	left = append([]any(nil), left...)
	for _, w := range want {
		i := slices.IndexFunc(left, func(g any) bool { return equivalent(g, w) })
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

func compact(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// dig finds the value at a dotted path ("$" is the whole reply; list indexes are
// numbers, negative ones from the end).
func dig(reply any, path string) (any, bool) {
	node := reply
	for _, step := range strings.Split(strings.TrimLeft(strings.TrimPrefix(path, "$"), "."), ".") {
		if step == "" {
			continue
		}
		var ok bool
		if node, ok = stepInto(node, step); !ok {
			return nil, false
		}
	}
	return node, true
}

func stepInto(node any, step string) (any, bool) {
	switch n := node.(type) {
	case map[string]any:
		v, ok := n[step]
		return v, ok
	case []any:
		i, err := strconv.Atoi(step)
		if err != nil {
			return nil, false
		}
		if i < 0 {
			i += len(n)
		}
		if i < 0 || i >= len(n) {
			return nil, false
		}
		return n[i], true
	}
	return nil, false
}

// equivalent is replies.equivalent: objects key by key (a missing key is its
// default), lists in order, int64 written as a string equals the number, numbers
// with a float among them within the tolerance.
func equivalent(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			return sameObjects(g, w)
		}
	case []any:
		if g, ok := got.([]any); ok {
			return sameLists(g, w)
		}
	case json.Number:
		return sameNumber(got, w)
	}
	if n, ok := got.(json.Number); ok {
		return sameNumber(want, n)
	}
	return got == want
}

func sameObjects(got, want map[string]any) bool {
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			g = defaultLike(w)
		}
		if !equivalent(g, w) {
			return false
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && !equivalent(g, defaultLike(g)) {
			return false
		}
	}
	return true
}

func sameLists(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !equivalent(got[i], want[i]) {
			return false
		}
	}
	return true
}

// sameNumber compares a number with a number or an int64's text.
func sameNumber(other any, n json.Number) bool {
	switch o := other.(type) {
	case json.Number:
		if isInteger(o) && isInteger(n) {
			return strings.TrimPrefix(string(o), "+") == string(n) || intEqual(o, n)
		}
		return floatsClose(o, n)
	case string:
		return isInteger(n) && isDigits(o) && intEqual(json.Number(o), n)
	}
	return false
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

func isDigits(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func intEqual(a, b json.Number) bool {
	x, errX := strconv.ParseInt(string(a), 10, 64)
	y, errY := strconv.ParseInt(string(b), 10, 64)
	if errX != nil || errY != nil {
		return string(a) == string(b) // beyond int64: the same digits
	}
	return x == y
}

func floatsClose(a, b json.Number) bool {
	x, errX := a.Float64()
	y, errY := b.Float64()
	if errX != nil || errY != nil {
		return false
	}
	return x == y || math.Abs(x-y) <= max(tolerance*max(math.Abs(x), math.Abs(y)), tolerance)
}

// defaultLike is the default of a value's type, as a missing key's.
func defaultLike(v any) any {
	switch v.(type) {
	case bool:
		return false
	case json.Number:
		return json.Number("0")
	case string:
		return ""
	case []any:
		return []any{}
	case map[string]any:
		return map[string]any{}
	}
	return nil
}
