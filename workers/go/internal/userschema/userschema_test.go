package userschema

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "rpcarena/workers/go/arenapb"

	"google.golang.org/protobuf/proto"
)

// The tests serve arena.proto's methods as a user's: their generated code is
// linked into this test binary, as a variant links a user's schema's.

func served(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "served.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, doc string) *Handler {
	t.Helper()
	h, err := Load(served(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func answer(t *testing.T, h *Handler, request proto.Message) proto.Message {
	t.Helper()
	reply, err := h.Answer(request)
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

func TestServedFileNamesTheMethodWithItsGeneratedTypes(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/SayHello", "descriptor_set_b64": "", "reply": "echo",
		"pairs": [[{"name": "ada"}, {"message": "ada"}]], "server_work_us": 0, "server_wait_us": 0}`)
	if h.Key() != "arena.Arena/SayHello" || h.Method.FullName != "/arena.Arena/SayHello" || h.Method.Streaming {
		t.Fatalf("method %+v", h.Method)
	}
	if _, ok := h.Method.NewRequest().(*pb.HelloRequest); !ok {
		t.Fatalf("request type %T: want the generated *pb.HelloRequest", h.Method.NewRequest())
	}
	if !strings.Contains(h.Calibration, "no server work or wait") {
		t.Fatalf("calibration %q", h.Calibration)
	}
}

func TestEchoReadsTheRequestAsTheReplyByFieldNumber(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/SayHello", "reply": "echo", "pairs": []}`)
	reply := answer(t, h, &pb.HelloRequest{Name: "ada"})
	if !proto.Equal(reply, &pb.HelloReply{Message: "ada"}) {
		t.Fatalf("echo %v", reply)
	}
	same := load(t, `{"method": "arena.Arena/Invert", "reply": "echo", "pairs": []}`)
	word := &pb.Word{Value: "abc"}
	if answer(t, same, word) != word {
		t.Fatal("a method of one type should answer the request itself")
	}
}

func TestFileAnswersEachRequestWithItsPairAndRefusesAStranger(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/SayHello", "reply": "file",
		"pairs": [[{"name": "ada"}, {"message": "one"}], [{"name": "grace"}, {"message": "two"}]]}`)
	for name, want := range map[string]string{"ada": "one", "grace": "two"} {
		if got := answer(t, h, &pb.HelloRequest{Name: name}).(*pb.HelloReply).GetMessage(); got != want {
			t.Errorf("%s answered %q, want %q", name, got, want)
		}
	}
	if _, err := h.Answer(&pb.HelloRequest{Name: "edsger"}); err == nil {
		t.Error("a request that is no sample should be an error")
	}
}

func TestSizeAnswersTheOneReplyWhateverTheRequest(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/SayHello", "reply": "size",
		"pairs": [[{"name": "ada"}, {"message": "rrrr"}], [{"name": "grace"}, {"message": "rrrr"}]]}`)
	for _, name := range []string{"ada", "someone else"} {
		if got := answer(t, h, &pb.HelloRequest{Name: name}).(*pb.HelloReply).GetMessage(); got != "rrrr" {
			t.Errorf("%s answered %q", name, got)
		}
	}
}

func TestServerWorkIsCalibratedAndSaid(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/SayHello", "reply": "echo", "pairs": [], "server_work_us": 50, "server_wait_us": 10}`)
	if !strings.Contains(h.Calibration, "server work 50us of thread CPU") || !strings.Contains(h.Calibration, "wait 10us") {
		t.Fatalf("calibration %q", h.Calibration)
	}
	answer(t, h, &pb.HelloRequest{Name: "ada"}) // spends it: the spin ends
}

func TestCalibrateCountsEveryCallAtLeastAtTheWork(t *testing.T) {
	found := Calibrate(100, 20)
	if found.AskedUs != 100 || found.Calls != 20 || found.ThreadCPUNs < 20*100_000 {
		t.Fatalf("calibration %+v", found)
	}
}

func TestBadServedFilesSayWhatIsWrong(t *testing.T) {
	cases := map[string]string{
		`{"method": "orders.Orders/Place", "reply": "echo"}`:               "not built with the schema",
		`{"method": "arena.Arena/Nope", "reply": "echo"}`:                  "has no method Nope",
		`{"method": "arena.Arena/SayHello", "reply": "loud"}`:              "use echo, file or size",
		`{"method": "arena.Arena/SayHello", "reply": "size", "pairs": []}`: "needs a [request, reply] pair",
		`{"method": "SayHello", "reply": "echo"}`:                          "give package.Service/Method",
		`not json`: "give the file rpcarena wrote",
	}
	for doc, want := range cases {
		if _, err := Load(served(t, doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", doc, err, want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file should be an error")
	}
}

func TestAStreamMethodIsBidirectional(t *testing.T) {
	m, err := Lookup("arena.Arena/InvertStream")
	if err != nil || !m.Streaming || m.FullName != "/arena.Arena/InvertStream" {
		t.Fatalf("%+v %v", m, err)
	}
}

func TestFileFindsARequestHoldingNaNWhateverItsPayload(t *testing.T) {
	h := load(t, `{"method": "arena.Arena/EchoFloats", "reply": "file",
		"pairs": [[{"values": [1.5, "NaN"]}, {"values": [2.5]}]]}`)
	// a NaN as Python, Java and Rust write it: the quiet NaN, not Go's math.NaN()
	quiet := math.Float64frombits(0x7ff8000000000000)
	for _, nan := range []float64{quiet, math.NaN()} {
		got := answer(t, h, &pb.DoubleList{Values: []float64{1.5, nan}}).(*pb.DoubleList).GetValues()
		if len(got) != 1 || got[0] != 2.5 {
			t.Errorf("NaN %x answered %v, want [2.5]", math.Float64bits(nan), got)
		}
	}
}
