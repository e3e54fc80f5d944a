// Package connserver is a plain TCP server: one goroutine per connection, every
// connection closed on Stop. The frame-based contenders (tcp-raw-go, tagless-go)
// differ only in what they do with a connection.
package connserver

import (
	"net"
	"sync"

	"rpcarena/workers/go/internal/core"
)

type server struct {
	handle func(net.Conn)
	mu     sync.Mutex
	lis    net.Listener
	conns  map[net.Conn]struct{}
}

// New serves each accepted connection with handle, then closes it.
func New(handle func(net.Conn)) core.Server {
	return &server{handle: handle, conns: map[net.Conn]struct{}{}}
}

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

func (s *server) serveConn(c net.Conn) {
	defer s.track(c, false)
	defer c.Close()
	s.handle(c)
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
