// Package connservertest serves a connection server on a loopback port for one test.
package connservertest

import (
	"net"
	"testing"

	"rpcarena/workers/go/internal/core"
)

// Dial serves srv on 127.0.0.1:0 until the test ends and returns a connection to it, closed then too.
func Dial(t testing.TB, srv core.Server) net.Conn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	c, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
