package restgo

import (
	"encoding/json"
	"io"
	"net"
	"net/http"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/predictions"

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

// NewHandler is the HTTP/JSON handler, for a server or an httptest server; a
// nil store leaves GET /predictions/{id_client} out (404).
func NewHandler(store *predictions.Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /arena/{method}", serveArena)
	if store != nil {
		mux.Handle("GET /predictions/{id_client}", predictionsHandler{store})
	}
	return mux
}

// serveArena answers POST /arena/{Method} with arena's one implementation of
// the method. An error is a request that does not decode or one the operation
// refuses (arena.Refused: a count over the cap): 400 with the reason either way.
func serveArena(w http.ResponseWriter, r *http.Request) {
	call, ok := arena.Unary(r.PathValue("method"))
	if !ok {
		http.Error(w, "unknown method", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply, err := call(r.Context(), func(m proto.Message) error { return decode(body, m) })
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}
