package restgo

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/predictions"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

type server struct {
	http  *http.Server
	store *predictions.Store // nil without --redis
}

// NewServer is a net/http server of the HTTP/JSON mapping, and of the
// predictions seed's GET /predictions/{id_client} when opts name a Redis.
func NewServer(opts core.ServerOptions) (core.Server, error) {
	store, err := predictions.Open(opts.Redis)
	if err != nil {
		return nil, err
	}
	return &server{http: &http.Server{Handler: NewHandler(store)}, store: store}, nil
}

func (s *server) Serve(lis net.Listener) error { return s.http.Serve(lis) }

func (s *server) Stop() {
	s.http.Close()
	s.store.Close()
}

// handler routes POST /arena/{Method} to arena.Service. The unary methods come
// from the generated service description, which pairs each name with a function
// that decodes the request (with the decoder it is given) and calls the service.
type handler struct {
	service arena.Service
	methods map[string]grpc.MethodDesc
}

// NewHandler is the HTTP/JSON handler, for a server or an httptest server; a
// nil store leaves GET /predictions/{id_client} out (404).
func NewHandler(store *predictions.Store) http.Handler {
	h := &handler{methods: map[string]grpc.MethodDesc{}}
	for _, m := range pb.Arena_ServiceDesc.Methods {
		h.methods[m.MethodName] = m
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /arena/{method}", h.serve)
	if store != nil {
		mux.Handle("GET /predictions/{id_client}", predictionsHandler{store})
	}
	return mux
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	m, ok := h.methods[r.PathValue("method")]
	if !ok {
		http.Error(w, "unknown method", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply, err := h.call(r.Context(), m, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}

// call decodes the request and runs the method; the service itself never fails,
// so an error is a request that does not decode.
func (h *handler) call(ctx context.Context, m grpc.MethodDesc, body []byte) (any, error) {
	dec := func(in any) error { return decode(body, in.(proto.Message)) }
	return m.Handler(h.service, ctx, dec, nil)
}
