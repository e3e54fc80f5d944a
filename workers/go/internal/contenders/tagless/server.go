package tagless

import (
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
)

// NewServer is the tagless server of arena.Arena's unary rpcs, one goroutine per connection.
func NewServer() core.Server { return NewServerIn(Tagless) }

// NewServerIn is the server of frames whose bodies are in enc. Each connection
// is answered until a bad frame or the end of the stream (Go sets TCP_NODELAY);
// a request frame over limits.MaxRequestBytes closes it; replies may be longer
// (MaxFrame, what the client reads).
func NewServerIn(enc Encoding) core.Server { return connserver.New(serveConnIn(enc)) }

func serveConnIn(enc Encoding) func(net.Conn) {
	return func(c net.Conn) { ServeStreamIn(enc, c, c, limits.MaxRequestBytes) }
}
