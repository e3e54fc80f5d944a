package tagless

import (
	"net"
	"sync"

	"rpcarena/workers/go/internal/core"
)

// server answers tagless frames, one goroutine per connection.
type server struct {
	mu    sync.Mutex
	lis   net.Listener
	conns map[net.Conn]struct{}
}

// NewServer is the tagless server of arena.Arena's unary rpcs.
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
		go s.serveConn(c)
	}
}

// serveConn closes the connection after a bad frame or at its end (Go sets TCP_NODELAY).
func (s *server) serveConn(c net.Conn) {
	defer s.track(c, false)
	defer c.Close()
	ServeStream(c, c, MaxFrame)
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
