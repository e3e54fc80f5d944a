package resth3

import (
	"errors"

	"rpcarena/workers/go/internal/core"

	"github.com/quic-go/quic-go"
)

// classify names QUIC's own failures, at the boundary: a connection that timed
// out idle or whose handshake never finished is a timeout; one the peer closed
// or reset, or a stream it reset, is a connection error.
func classify(err error) error {
	var idle *quic.IdleTimeoutError
	var handshake *quic.HandshakeTimeoutError
	var app *quic.ApplicationError
	var transport *quic.TransportError
	var stream *quic.StreamError
	var reset *quic.StatelessResetError
	switch {
	case errors.As(err, &idle), errors.As(err, &handshake):
		return &core.KindError{Kind: core.KindTimeout, Err: err}
	case errors.As(err, &app), errors.As(err, &transport), errors.As(err, &stream), errors.As(err, &reset):
		return &core.KindError{Kind: core.KindConnection, Err: err}
	}
	return err
}
