package restgo

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/predictions"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/protobuf/proto"
)

type server struct {
	http  *http.Server
	store *predictions.Store // nil without --redis
}

// NewServer is a net/http server of the HTTP/JSON mapping, of the
// predictions seed's GET /predictions/{id_client} when opts name a Redis, and of
// the user's method when opts name its served.json.
func NewServer(opts core.ServerOptions) (core.Server, error) {
	user, err := userschema.Open(opts.Schema)
	if err != nil {
		return nil, err
	}
	store, err := predictions.Open(opts.Redis)
	if err != nil {
		return nil, err
	}
	handler := NewHandler(store)
	if user != nil {
		handler = withUser(handler, user)
	}
	return &server{http: bounded(handler), store: store}, nil
}

// bounded is an http.Server a peer cannot hold: a request's headers must come
// within the idle timeout, a whole request be read and its reply taken within
// it too, and a keep-alive connection idle that long is closed.
func bounded(h http.Handler) *http.Server {
	idle := limits.IdleTimeout()
	return &http.Server{Handler: h, ReadHeaderTimeout: idle, ReadTimeout: idle, WriteTimeout: idle,
		IdleTimeout: idle, MaxHeaderBytes: 64 << 10}
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
	body, ok := readBodyOr400(w, r)
	if !ok {
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

// readBodyOr400 is readBody, answering its error itself: 413 past the limit, else 400.
func readBodyOr400(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := readBody(w, r)
	if err != nil {
		status := http.StatusBadRequest
		if errors.As(err, new(*http.MaxBytesError)) {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, err.Error(), status)
	}
	return body, err == nil
}

// readBody reads a request's body up to limits.MaxRequestBytes: a
// Content-Length past it is refused before a byte is read, and a chunked body
// that grows past it stops there (an *http.MaxBytesError either way, 413).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > limits.MaxRequestBytes {
		return nil, &http.MaxBytesError{Limit: limits.MaxRequestBytes}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limits.MaxRequestBytes))
}
