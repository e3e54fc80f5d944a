package core

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Error kinds of the contract. Contenders add "status_<code>" kinds of their own.
const (
	KindWrongAnswer = "wrong_answer"
	KindTimeout     = "timeout"
	KindConnection  = "connection"
	KindOther       = "other"
)

// BaseKinds appear in every result's errors, zero or not.
var BaseKinds = []string{KindWrongAnswer, KindTimeout, KindConnection, KindOther}

// KindError is an error a contender has already classified at its boundary.
type KindError struct {
	Kind string
	Err  error
}

func (e *KindError) Error() string { return e.Kind + ": " + e.Err.Error() }
func (e *KindError) Unwrap() error { return e.Err }

// Classify names the kind of a failed call.
func Classify(err error) string {
	var kindErr *KindError
	var netErr net.Error
	switch {
	case errors.As(err, &kindErr):
		return kindErr.Kind
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return KindTimeout
	case isConnection(err):
		return KindConnection
	}
	return KindOther
}

func isConnection(err error) bool {
	var opErr *net.OpError
	for _, target := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE,
		syscall.ECONNABORTED, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed} {
		if errors.Is(err, target) {
			return true
		}
	}
	return errors.As(err, &opErr)
}
