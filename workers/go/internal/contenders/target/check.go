package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tolerance of doubles, as src/rpcarena/protocol/replies.py compares them.
const tolerance = 1e-9

// check is one `--expect-json PATH=VALUE`, its value rendered for one request.
type check struct {
	path string
	want any
}

// decodeChecks reads the spec's responses: for each request, its [path, value] pairs.
func decodeChecks(responses []json.RawMessage) ([][]check, error) {
	out := make([][]check, len(responses))
	for i, raw := range responses {
		var pairs [][]json.RawMessage
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return nil, fmt.Errorf("responses[%d]: want a list of [path, value] checks: %v", i, err)
		}
		for _, pair := range pairs {
			var path string
			if len(pair) != 2 || json.Unmarshal(pair[0], &path) != nil {
				return nil, fmt.Errorf("responses[%d]: a check is [path, value], got %s", i, raw)
			}
			want, err := decodeJSON(pair[1])
			if err != nil {
				return nil, fmt.Errorf("responses[%d]: %v", i, err)
			}
			out[i] = append(out[i], check{path, want})
		}
	}
	return out, nil
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
		if !ok || !equivalent(got, c.want) {
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
			return fmt.Sprintf("%s: missing, want %s", c.path, compact(c.want))
		}
		if !equivalent(got, c.want) {
			return fmt.Sprintf("%s: got %s, want %s", c.path, compact(got), compact(c.want))
		}
	}
	return "every check holds"
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
