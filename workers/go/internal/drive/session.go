package drive

import (
	"context"
	"fmt"
	"time"

	"rpcarena/workers/go/internal/core"
)

// session is one client of a run: its own connection and its call counter k.
type session struct {
	id      int
	client  core.Client
	conn    core.Conn
	timeout time.Duration
	k       int
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
	if err := s.connect(); err != nil {
		now := time.Now()
		return outcome{start: now, end: now, kind: core.Classify(err), err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	start := time.Now()
	reply, err := s.conn.Call(ctx, idx)
	end := time.Now()
	cancel()
	o := outcome{start: start, end: end, err: err}
	o.kind = s.judge(idx, reply, &o.err)
	if streamed, ok := reply.(core.Streamed); ok && o.kind == "" {
		o.messages = streamed.MessageLatencies()
	}
	return o
}

// judge names the kind of a call's failure ("" for none), setting *err for a
// wrong answer.
func (s *session) judge(idx int, reply any, err *error) string {
	if *err != nil {
		kind := core.Classify(*err)
		if kind == core.KindConnection || kind == core.KindTimeout {
			s.close() // a failed or desynchronized connection: reconnect before the next call
		}
		return kind
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
