// Package connserver is a plain TCP server: one goroutine per connection, every
// connection closed on Stop or after limits.IdleTimeout without a byte either way. The
// frame-based contenders (tcp-raw-go, tagless-go) differ only in what they do
// with a connection.
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
// that neither sends nor takes a byte for limits.IdleTimeout (a frame begun and
// not finished included) is closed.
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

// idleConn moves its deadline before each read and each write: a peer that
// stops sending, or stops taking replies, for the idle time gets an error
// (os.ErrDeadlineExceeded), and its connection is closed.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c idleConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(p)
}

func (c idleConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(p)
}
