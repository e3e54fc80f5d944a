package tagless

import (
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
)

// NewServer is the tagless server of arena.Arena's unary rpcs, one goroutine per connection.
func NewServer() core.Server { return connserver.New(serveConn) }

// serveConn answers frames until a bad frame or the end of the stream (Go sets
// TCP_NODELAY). A request frame over limits.MaxRequestBytes closes the
// connection; replies may be longer (MaxFrame, what the client reads).
func serveConn(c net.Conn) { ServeStream(c, c, limits.MaxRequestBytes) }
