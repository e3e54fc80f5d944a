package tagless

import (
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/userschema"
)

// NewServer is the tagless server of arena.Arena's unary rpcs, one goroutine per connection.
func NewServer() core.Server { return NewServerIn(Tagless) }

// NewServerIn is the server of frames whose bodies are in enc. Each connection
// is answered until a bad frame or the end of the stream (Go sets TCP_NODELAY);
// a request frame over limits.MaxRequestBytes closes it; replies may be longer
// (MaxFrame, what the client reads).
func NewServerIn(enc Encoding) core.Server { return connserver.New(serveConnIn(enc, nil)) }

// NewServerOf is NewServerIn, serving the user's method of opts' served.json too
// (as frames of kind UserKind).
func NewServerOf(enc Encoding, opts core.ServerOptions) (core.Server, error) {
	h, err := userschema.Open(opts.Schema)
	if err != nil || h == nil {
		return NewServerIn(enc), err
	}
	user, err := newUserMethod(h.Method, answering(h))
	if err != nil {
		return nil, err
	}
	return connserver.New(serveConnIn(enc, user)), nil
}

func serveConnIn(enc Encoding, user *Method) func(net.Conn) {
	return func(c net.Conn) { serveStream(user, enc, c, c, limits.MaxRequestBytes) }
}
