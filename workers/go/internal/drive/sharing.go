package drive

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"rpcarena/workers/go/internal/core"
)

// pool is the spec's connections: the run's clients sharing M of them. Where a
// connection multiplexes (a gRPC channel) client i calls on connection i mod M,
// many calls in flight on each; elsewhere a call borrows a free connection and
// gives it back, its wait for one timed by the client's session.
type pool struct {
	client  core.Client
	timeout time.Duration
	slots   []*slot
	free    chan *slot // nil where connections multiplex
	gauge   gauge
}

// slot is one shared connection, dialled at its first use and again after it broke.
type slot struct {
	mu   sync.Mutex
	conn atomic.Pointer[connBox]
}

type connBox struct{ conn core.Conn }

func newPool(client core.Client, n int, timeout time.Duration) *pool {
	p := &pool{client: client, timeout: timeout}
	for range n {
		p.slots = append(p.slots, &slot{})
	}
	if m, ok := client.(core.Multiplexer); ok && m.Multiplexes() {
		return p
	}
	p.free = make(chan *slot, n)
	for _, s := range p.slots {
		p.free <- s
	}
	return p
}

// acquire is the connection client id calls on next: its own share of a
// multiplexed one, or a free one of the pool (the wait returned).
func (p *pool) acquire(id int) (*slot, time.Duration) {
	if p.free == nil {
		return p.slots[id%len(p.slots)], 0
	}
	start := time.Now()
	s := <-p.free
	return s, time.Since(start)
}

// release gives a borrowed connection back; a broken one is closed, to be
// dialled again by the next call on it (a multiplexed channel reconnects itself).
func (p *pool) release(s *slot, broken bool) {
	if p.free == nil {
		return
	}
	if broken {
		s.drop()
	}
	p.free <- s
}

// get is the slot's connection, dialled if it has none.
func (s *slot) get(p *pool) (core.Conn, error) {
	if box := s.conn.Load(); box != nil {
		return box.conn, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if box := s.conn.Load(); box != nil {
		return box.conn, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	conn, err := p.client.Dial(ctx)
	if err != nil {
		return nil, err
	}
	s.conn.Store(&connBox{conn})
	return conn, nil
}

func (s *slot) drop() {
	if box := s.conn.Swap(nil); box != nil {
		box.conn.Close()
	}
}

func (p *pool) close() {
	for _, s := range p.slots {
		s.drop()
	}
}

// gauge counts the calls in flight at once: the most, and the mean sampled at
// each call's start (that call counted), since reset.
type gauge struct {
	now, max, starts, total atomic.Int64
}

func (g *gauge) enter() {
	now := g.now.Add(1)
	g.starts.Add(1)
	g.total.Add(now)
	for top := g.max.Load(); now > top && !g.max.CompareAndSwap(top, now); top = g.max.Load() {
	}
}

func (g *gauge) leave() { g.now.Add(-1) }

func (g *gauge) reset() {
	g.max.Store(0)
	g.starts.Store(0)
	g.total.Store(0)
}

func (g *gauge) mean() float64 {
	if starts := g.starts.Load(); starts > 0 {
		return float64(g.total.Load()) / float64(starts)
	}
	return 0
}
