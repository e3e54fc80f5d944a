package tcpraw

import (
	"bufio"
	"net"

	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/core"
)

// NewServer is the tcp-raw echo server, one goroutine per connection.
func NewServer() core.Server { return connserver.New(echo) }

// echo writes each frame back with one write (Go sets TCP_NODELAY by default).
// It reads through a buffer, so one read takes a frame's header and payload
// (and any frame pipelined behind it) rather than a read for each.
func echo(c net.Conn) {
	r := bufio.NewReaderSize(c, readBuffer)
	buf := make([]byte, 0, 4096)
	for {
		var err error
		if buf, err = readFrame(r, buf); err != nil {
			return
		}
		if _, err = c.Write(buf); err != nil {
			return
		}
	}
}
