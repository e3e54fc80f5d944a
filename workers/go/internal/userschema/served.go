package userschema

import (
	"encoding/json"
	"fmt"
	"os"

	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/proto"
)

// File is served.json, what `serve --schema PATH` reads (ServedFile in
// src/rpcarena/userschema/workload.py). The descriptor set it carries is not
// needed here: the generated code linked into this build has the schema.
type File struct {
	Method       string              `json:"method"` // "pkg.Service/Method"
	Reply        string              `json:"reply"`  // echo, file or size
	Pairs        [][]json.RawMessage `json:"pairs"`  // [request, reply] in proto JSON
	ServerWorkUs float64             `json:"server_work_us"`
	ServerWaitUs float64             `json:"server_wait_us"`
	// StreamMessages: a server-streaming method's replies a call (a client
	// stream's requests are the client's to choose).
	StreamMessages int `json:"stream_messages"`
}

// maxStreamMessages bounds what a served file may ask (the Python side's --stream-messages limit).
const maxStreamMessages = 10000

// Handler is the user's method as a server answers it.
type Handler struct {
	Method      arena.Method
	Calibration string // the line the server logs: what the handler's cost was calibrated to
	// StreamMessages: the replies a server-streaming call gets (the handler's answer, K times).
	StreamMessages int
	respond        Responder
	cost           func()
}

// ReadFile reads and checks served.json.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bad --schema %s: %v; give the file rpcarena wrote for the run", path, err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("bad --schema %s: %v; give the file rpcarena wrote for the run", path, err)
	}
	if f.ServerWorkUs < 0 || f.ServerWaitUs < 0 {
		return nil, fmt.Errorf("bad --schema %s: negative server work or wait", path)
	}
	if f.StreamMessages == 0 {
		f.StreamMessages = 1
	}
	if f.StreamMessages < 1 || f.StreamMessages > maxStreamMessages {
		return nil, fmt.Errorf("bad --schema %s: stream_messages %d: give 1 to %d", path, f.StreamMessages, maxStreamMessages)
	}
	return &f, nil
}

// Load reads served.json and prepares its method's answers and cost (the CPU
// spin is calibrated here, once, at start).
func Load(path string) (*Handler, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	method, err := Lookup(f.Method)
	if err != nil {
		return nil, err
	}
	respond, err := NewResponder(f.Reply, f.Pairs, method)
	if err != nil {
		return nil, fmt.Errorf("bad --schema %s: %v", path, err)
	}
	cost, calibration := Cost(f.ServerWorkUs, f.ServerWaitUs)
	return &Handler{Method: method, Calibration: f.Method + ": " + calibration, StreamMessages: f.StreamMessages,
		respond: respond, cost: cost}, nil
}

// Answer spends the handler's cost, then answers request.
func (h *Handler) Answer(request proto.Message) (proto.Message, error) {
	h.cost()
	return h.respond(request)
}

// Key is the method as clients name it, "pkg.Service/Method".
func (h *Handler) Key() string { return h.Method.Service + "/" + h.Method.Name }

// Open is the handler of opts' --schema, or nil without one; it logs its
// calibration on stderr, as the Python servers do.
func Open(path string) (*Handler, error) {
	if path == "" {
		return nil, nil
	}
	h, err := Load(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "rpcarena: %s\n", h.Calibration)
	return h, nil
}
