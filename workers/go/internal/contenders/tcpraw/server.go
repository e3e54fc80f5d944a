package tcpraw

import (
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
)

// NewServer is the tcp-raw echo server, one goroutine per connection.
func NewServer() core.Server { return connserver.New(echo) }

// echo writes each frame back with one write (Go sets TCP_NODELAY by default).
func echo(c net.Conn) {
	buf := make([]byte, 0, 4096)
	for {
		var err error
		if buf, err = readFrame(c, buf); err != nil {
			return
		}
		if _, err = c.Write(buf); err != nil {
			return
		}
	}
}
