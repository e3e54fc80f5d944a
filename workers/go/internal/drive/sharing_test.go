package drive

import (
	"context"
	"testing"
	"time"

	"rpcarena/workers/go/internal/core"
)

// countingClient dials connections that answer nothing: the pool's logic, not a contender, is tested.
type countingClient struct {
	dials int
	mux   bool
}

type idleConn struct{}

func (idleConn) Call(context.Context, int) (any, error) { return nil, nil }
func (idleConn) Close() error                           { return nil }

func (c *countingClient) Dial(context.Context) (core.Conn, error) { c.dials++; return idleConn{}, nil }
func (c *countingClient) Matches(int, any) bool                   { return true }
func (c *countingClient) Len() int                                { return 1 }
func (c *countingClient) Multiplexes() bool                       { return c.mux }

func TestMultiplexedConnectionsAreSharedRoundRobin(t *testing.T) {
	client := &countingClient{mux: true}
	p := newPool(client, 2, time.Second)
	for id := range 6 {
		s, waited := p.acquire(id)
		if s != p.slots[id%2] || waited != 0 {
			t.Fatalf("client %d got slot %p after %v, want slot %d at once", id, s, waited, id%2)
		}
		if _, err := s.get(p); err != nil {
			t.Fatal(err)
		}
	}
	if client.dials != 2 {
		t.Fatalf("dialled %d connections, want 2", client.dials)
	}
}

func TestAPoolLendsEachConnectionToOneCallAtATime(t *testing.T) {
	p := newPool(&countingClient{}, 2, time.Second)
	a, _ := p.acquire(0)
	b, _ := p.acquire(1)
	if a == b {
		t.Fatal("two calls got the same connection")
	}
	got := make(chan *slot)
	go func() { s, _ := p.acquire(2); got <- s }()
	select {
	case <-got:
		t.Fatal("a third call got a connection while both were lent")
	case <-time.After(20 * time.Millisecond):
	}
	p.release(a, false)
	if s := <-got; s != a {
		t.Fatal("the waiting call did not get the connection given back")
	}
}

func TestTheGaugeKeepsTheMostInFlightAndTheMeanAtEachStart(t *testing.T) {
	var g gauge
	g.enter()
	g.enter()
	g.leave()
	g.enter()
	if g.max.Load() != 2 || g.mean() != 5.0/3 {
		t.Fatalf("max %d mean %v, want 2 and 5/3", g.max.Load(), g.mean())
	}
}
