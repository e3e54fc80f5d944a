package restgo

import (
	"context"
	"net/http"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// A user's method is POST /package.Service/Method with proto JSON bodies, the
// mapping rest-fastapi serves it on (src/rpcarena/contenders/http_mapping.py),
// so either client calls either server. Its messages are the generated ones of
// the schema, read and written with protojson: what encoding/json cannot do
// for every schema (oneofs, well-known types), and what a Go user of protobuf
// messages over HTTP calls. Enums go as numbers, as the canonical replies hold them;
// a key the message has no field for is an error (protojson's default), never a
// field dropped from the message measured.
var (
	userJSON    = protojson.MarshalOptions{UseProtoNames: true, UseEnumNumbers: true}
	userParsing = protojson.UnmarshalOptions{}
)

// userRoute is the client's side of the mapping.
type userRoute struct{ method arena.Method }

func (r userRoute) request(ctx context.Context, base string, m proto.Message) (*http.Request, error) {
	body, err := userJSON.Marshal(m)
	if err != nil {
		return nil, err
	}
	return postJSON(ctx, base+"/"+r.method.Service+"/"+r.method.Name, body)
}

func (r userRoute) reply(body []byte) (proto.Message, error) {
	reply := r.method.NewResponse()
	return reply, userParsing.Unmarshal(body, reply)
}

// withUser adds the user's method before the contract's routes.
func withUser(arenaRoutes http.Handler, h *userschema.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /"+h.Key(), userHandler{h})
	mux.Handle("/", arenaRoutes)
	return mux
}

type userHandler struct{ h *userschema.Handler }

// ServeHTTP answers one request: 400 with the reason for a body that is not
// the request message (or a request the reply file has no answer for).
func (u userHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := readBodyOr400(w, r)
	if !ok {
		return
	}
	request := u.h.Method.NewRequest()
	if err := userParsing.Unmarshal(body, request); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply, err := u.h.Answer(request)
	if err == nil {
		body, err = userJSON.Marshal(reply)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
