package connectgo

import (
	"errors"

	"rpcarena/workers/go/internal/core"

	"connectrpc.com/connect"
)

// translate turns a connect error into the contract's kinds, at the boundary:
// its code in gRPC's lower-case names (connect's own spelling), a deadline a
// timeout, and unavailable with a transport error under it a connection error.
func translate(err error) error {
	var connectErr *connect.Error
	if !errors.As(err, &connectErr) {
		return err
	}
	code := connectErr.Code()
	switch {
	case code == connect.CodeDeadlineExceeded:
		return &core.KindError{Kind: core.KindTimeout, Err: err}
	case code == connect.CodeUnavailable && core.Classify(connectErr.Unwrap()) == core.KindConnection:
		return &core.KindError{Kind: core.KindConnection, Err: err}
	}
	return &core.KindError{Kind: "status_" + code.String(), Err: err}
}
