package tagless

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/vectors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// vector is a shared vector decoded for its tagless method.
type vector struct {
	index         int
	method        *Method
	kind          uint16
	request, want proto.Message
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []vector
	for i, v := range vs {
		kind, err := MethodIndex(v.Method)
		if err != nil {
			continue // InvertStream: not a tagless method
		}
		m := table[kind]
		req, want := m.NewRequest(), m.NewResponse()
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		if err := protojson.Unmarshal(v.Response, want); err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		out = append(out, vector{i, m, uint16(kind), req, want})
	}
	if len(out) < 40 {
		t.Fatalf("only %d vectors", len(out))
	}
	return out
}

func roundTrip(t *testing.T, c *MessageCodec, msg, fresh proto.Message) []byte {
	t.Helper()
	body := c.Encode(nil, msg)
	if err := c.Decode(body, fresh); err != nil {
		t.Fatalf("%s: %v", c.Desc.Name(), err)
	}
	if !proto.Equal(fresh, msg) || !bytes.Equal(c.Encode(nil, fresh), body) {
		t.Fatalf("%s: round trip gives %v", c.Desc.Name(), fresh)
	}
	return body
}

func TestEveryVectorRoundTrips(t *testing.T) {
	for _, v := range loadVectors(t) {
		roundTrip(t, v.method.Request, v.request, v.method.NewRequest())
		roundTrip(t, v.method.Response, v.want, v.method.NewResponse())
	}
}

type golden struct {
	Vector      int    `json:"vector"`
	Method      string `json:"method"`
	Kind        uint16 `json:"kind"`
	RequestHex  string `json:"request_hex"`
	ResponseHex string `json:"response_hex"`
}

// The bytes src/rpcarena/codec/tagless.py produces (testdata/gen_tagless_golden.py).
func TestEncodingIsPythonsByteForByte(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "tagless_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Golden []golden }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	byIndex := map[int]vector{}
	for _, v := range loadVectors(t) {
		byIndex[v.index] = v
	}
	for _, g := range doc.Golden {
		v := byIndex[g.Vector]
		if v.method == nil || v.method.Name != g.Method || v.kind != g.Kind {
			t.Fatalf("golden vector %d (%s, kind %d) does not match the schema: rerun the script", g.Vector, g.Method, g.Kind)
		}
		checkBytes(t, g, v.method.Request, v.request, g.RequestHex)
		checkBytes(t, g, v.method.Response, v.want, g.ResponseHex)
	}
	if len(doc.Golden) < 30 {
		t.Fatalf("only %d golden vectors", len(doc.Golden))
	}
}

func checkBytes(t *testing.T, g golden, c *MessageCodec, msg proto.Message, wantHex string) {
	t.Helper()
	if got := hex.EncodeToString(c.Encode(nil, msg)); got != wantHex {
		t.Errorf("vector %d %s %s: Go %s, Python %s", g.Vector, g.Method, c.Desc.Name(), got, wantHex)
	}
	want, _ := hex.DecodeString(wantHex)
	fresh := msg.ProtoReflect().Type().New().Interface()
	if err := c.Decode(want, fresh); err != nil || !arena.Equal(fresh, msg) {
		t.Errorf("vector %d %s: Python's bytes decode to %v (%v)", g.Vector, g.Method, fresh, err)
	}
}

func TestShapesOfTheEncoding(t *testing.T) {
	large := table[mustIndex(t, "EchoLargeData8192")].Request
	if large.whole != 8192*4 || len(large.Encode(nil, &pb.LargeData8192{F1: 7})) != 8192*4 {
		t.Errorf("LargeData8192 is not one packed struct of 8192 int32 (%d bytes)", large.whole)
	}
	int64Msg := table[mustIndex(t, "EchoInt64")].Request // flat: int64 fixed, 8 bytes
	if got := int64Msg.Encode(nil, &pb.Int64Msg{Value: -1}); !bytes.Equal(got, bytes.Repeat([]byte{0xff}, 8)) {
		t.Errorf("Int64Msg -1 is %x", got)
	}
	items := table[mustIndex(t, "EchoItems")].Request // outside flat messages int64 is a zigzag varint
	got := items.Encode(nil, &pb.ItemList{Items: []*pb.Item{{Id: -2, Name: "é", Price: 1, Active: true}}})
	want := "01" + "03" + "02c3a9" + "000000000000f03f" + "01"
	if hex.EncodeToString(got) != want {
		t.Errorf("ItemList is %x, want %s", got, want)
	}
	pair := table[mustIndex(t, "Distance")].Request // unset nested messages: their defaults
	if n := len(pair.Encode(nil, &pb.VectorPair{})); n != 48 {
		t.Errorf("empty VectorPair is %d bytes", n)
	}
}

func mustIndex(t *testing.T, name string) int {
	t.Helper()
	i, err := MethodIndex(name)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestBadBodiesAreDecodeErrors(t *testing.T) {
	cases := []struct{ method, hexBody, says string }{
		{"SayHello", "09616263", "exceeds"},                                        // a length past the body
		{"SayHello", "03616263ff", "trailing"},                                     // bytes left over
		{"SayHello", "02c328", "UTF-8"},                                            // not UTF-8
		{"SayHello", "ff", "cut short"},                                            // varint never ends
		{"EchoInts", "ffffffff" + strings.Repeat("00", 16), "exceeds the 20-byte"}, // count before allocation
		{"EchoInts", "02010203", "repeated values"},                                // count within the buffer, values missing
		{"EchoItems", "ffffff7f", "exceeds"},
		{"EchoItems", "05" + strings.Repeat("00", 20), "repeated messages"}, // 5 items need 55 bytes
		{"EchoStrings", "030000", "repeated strings"},
		{"EchoItems", "01" + "ffffffffffffffffff7f" + "00" + strings.Repeat("00", 9), "overflows"},
		{"EchoLargeData128", "00", "512 bytes"},
		{"EchoInt32", "0102030405", "4 bytes, got 5"},
		{"Distance", strings.Repeat("00", 40), "needs 24 bytes"},
	}
	for _, c := range cases {
		m := table[mustIndex(t, c.method)]
		body, _ := hex.DecodeString(c.hexBody)
		err := m.Request.Decode(body, m.NewRequest())
		if _, ok := err.(*DecodeError); !ok || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %s: %v, want a DecodeError saying %q", c.method, c.hexBody, err, c.says)
		}
	}
}

// The direct path (generated structs in place) and the protoreflect path
// (dynamicpb) give the same bytes and the same values.
func TestDirectAndReflectPathsAgree(t *testing.T) {
	for _, v := range loadVectors(t) {
		for _, pair := range []struct {
			c   *MessageCodec
			msg proto.Message
		}{{v.method.Request, v.request}, {v.method.Response, v.want}} {
			dyn := dynamicpb.NewMessage(pair.c.Desc)
			wire, _ := proto.Marshal(pair.msg)
			if err := proto.Unmarshal(wire, dyn); err != nil {
				t.Fatal(err)
			}
			direct := pair.c.Encode(nil, pair.msg)
			if got := pair.c.Encode(nil, dyn); !bytes.Equal(got, direct) {
				t.Fatalf("vector %d %s: dynamicpb %x, generated %x", v.index, pair.c.Desc.Name(), got, direct)
			}
			back := dynamicpb.NewMessage(pair.c.Desc)
			if err := pair.c.Decode(direct, back); err != nil || !proto.Equal(back, dyn) {
				t.Fatalf("vector %d %s: dynamicpb decode %v", v.index, pair.c.Desc.Name(), err)
			}
		}
	}
}
