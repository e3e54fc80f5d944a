package tcpraw

import (
	"net"
	"sync"

	"rpcarena/workers/go/internal/core"
)

// server echoes every frame back unchanged, one goroutine per connection.
type server struct {
	mu    sync.Mutex
	lis   net.Listener
	conns map[net.Conn]struct{}
}

// NewServer is the tcp-raw echo server.
func NewServer() core.Server { return &server{conns: map[net.Conn]struct{}{}} }

func (s *server) Serve(lis net.Listener) error {
	s.mu.Lock()
	s.lis = lis
	s.mu.Unlock()
	for {
		c, err := lis.Accept()
		if err != nil {
			return err
		}
		s.track(c, true)
		go s.echo(c)
	}
}

// echo writes each frame back with one write (Go sets TCP_NODELAY by default).
func (s *server) echo(c net.Conn) {
	defer s.track(c, false)
	defer c.Close()
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

func (s *server) track(c net.Conn, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open {
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
}

func (s *server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis != nil {
		s.lis.Close()
	}
	for c := range s.conns {
		c.Close()
	}
}
