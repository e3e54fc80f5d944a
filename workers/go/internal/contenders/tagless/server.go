package tagless

import (
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
)

// NewServer is the tagless server of arena.Arena's unary rpcs, one goroutine per connection.
func NewServer() core.Server { return connserver.New(serveConn) }

// serveConn answers frames until a bad frame or the end of the stream (Go sets TCP_NODELAY).
func serveConn(c net.Conn) { ServeStream(c, c, MaxFrame) }
