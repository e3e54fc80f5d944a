package drive

import (
	"context"
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"rpcarena/workers/go/internal/core"
)

// session is one client of a run: its own connection (or the run's shared
// pool of them) and its call counter k.
type session struct {
	id      int
	client  core.Client
	conn    core.Conn
	timeout time.Duration
	k       int
	pool    *pool                   // the spec's connections; nil: a connection of its own
	slot    *slot                   // the shared connection of the call under way
	wait    *hdrhistogram.Histogram // a pool's: each call's wait for a free connection
}

// outcome is one finished call: when it ran and, if it failed, the error kind.
type outcome struct {
	start, end time.Time
	kind       string          // "" for a verified reply
	err        error           // why it failed, for the result's error_examples
	messages   []time.Duration // a verified stream's message latencies
}

// call sends request (id + k) mod len, times it, and checks the reply.
func (s *session) call() outcome {
	idx := (s.id + s.k) % s.client.Len()
	s.k++
	asked := time.Now()
	conn, err := s.open()
	if err != nil {
		now := time.Now()
		return outcome{start: now, end: now, kind: core.Classify(err), err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	start := time.Now()
	if s.pool != nil && s.pool.free != nil {
		start = asked // a pooled call is timed as its caller sees it: the wait for a connection included
	}
	reply, err := s.send(conn, ctx, idx)
	end := time.Now()
	cancel()
	o := outcome{start: start, end: end, err: err}
	o.kind = s.judge(idx, reply, &o.err)
	s.done(o.kind == core.KindConnection || o.kind == core.KindTimeout)
	if streamed, ok := reply.(core.Streamed); ok && o.kind == "" {
		o.messages = streamed.MessageLatencies()
	}
	return o
}

// judge names the kind of a call's failure ("" for none), setting *err for a
// wrong answer.
func (s *session) judge(idx int, reply any, err *error) string {
	if *err != nil {
		return core.Classify(*err)
	}
	if !s.client.Matches(idx, reply) {
		*err = wrongAnswer{idx: idx, reply: reply, client: s.client}
		return core.KindWrongAnswer
	}
	return ""
}

// wrongAnswer formats only when it becomes an example.
type wrongAnswer struct {
	idx    int
	reply  any
	client core.Client
}

func (w wrongAnswer) Error() string {
	if e, ok := w.client.(core.Explainer); ok {
		return e.Explain(w.idx, w.reply)
	}
	return fmt.Sprintf("reply to request %d differs from the expected response: %v", w.idx, w.reply)
}

// open is the next call's connection: the session's own, dialled if need be,
// or a shared one (a pool's waited for and timed).
func (s *session) open() (core.Conn, error) {
	if s.pool == nil {
		err := s.connect()
		return s.conn, err
	}
	slot, waited := s.pool.acquire(s.id)
	if s.pool.free != nil {
		s.wait.RecordValue(max(1, waited.Nanoseconds()))
	}
	conn, err := slot.get(s.pool)
	if err != nil {
		s.pool.release(slot, false)
		return nil, err
	}
	s.slot = slot
	return conn, nil
}

// send is the call itself; on a shared connection it is counted in flight.
func (s *session) send(conn core.Conn, ctx context.Context, idx int) (any, error) {
	if s.pool == nil {
		return conn.Call(ctx, idx)
	}
	s.pool.gauge.enter()
	defer s.pool.gauge.leave()
	return conn.Call(ctx, idx)
}

// done ends a call: a failed or desynchronized connection is closed, to be
// dialled again before the next call; a borrowed one goes back to the pool.
func (s *session) done(broken bool) {
	switch {
	case s.pool != nil:
		s.pool.release(s.slot, broken)
		s.slot = nil
	case broken:
		s.close()
	}
}

// connect dials unless the session holds a connection already.
func (s *session) connect() error {
	if s.conn != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	conn, err := s.client.Dial(ctx)
	if err != nil {
		return err
	}
	s.conn = conn
	return nil
}

func (s *session) close() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}
