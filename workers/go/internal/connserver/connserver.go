// Package connserver is a plain TCP server: one goroutine per connection, every
// connection closed on Stop, or when it has not completed a request (its reply written)
// within limits.IdleTimeout of its start or of its previous reply. The frame-based
// contenders (tcp-raw-go, tagless-go, proto-frames-go) differ only in what they do with
// a connection.
package connserver

import (
	"net"
	"sync"
	"time"

	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
)

type server struct {
	handle func(net.Conn)
	idle   time.Duration
	mu     sync.Mutex
	lis    net.Listener
	conns  map[net.Conn]struct{}
}

// New serves each accepted connection with handle, then closes it; a connection
// whose next request has not arrived whole, and its reply been taken, within
// limits.IdleTimeout is closed (idle, a frame begun and not finished, a frame
// trickled a byte at a time, a peer that takes no reply).
func New(handle func(net.Conn)) core.Server { return NewIdle(handle, limits.IdleTimeout()) }

// NewIdle is New with another idle timeout (a short one in tests).
func NewIdle(handle func(net.Conn), idle time.Duration) core.Server {
	return &server{handle: handle, idle: idle, conns: map[net.Conn]struct{}{}}
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
	c.SetDeadline(time.Now().Add(s.idle)) // the first request's
	s.handle(idleConn{c, s.idle})
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

// idleConn moves its deadline with each reply, not with each read: a request
// must arrive whole, and its reply be taken, within the idle time of the previous
// reply. A deadline moved before every read let a request trickled a byte every
// 5 s live for ever. A peer past it gets an error (os.ErrDeadlineExceeded), and
// its connection is closed.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c idleConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.Conn.SetDeadline(time.Now().Add(c.idle)) // the reply went out: the next request's
	return n, err
}
