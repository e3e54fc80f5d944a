package grpcgo

import (
	"strings"
	"unicode"

	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Translate turns a gRPC status into the contract's error kinds, at the boundary.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	kind := "status_" + snake(st.Code().String())
	switch {
	case st.Code() == codes.DeadlineExceeded:
		kind = core.KindTimeout
	case st.Code() == codes.Unavailable && transportFailed(st.Message()):
		kind = core.KindConnection
	}
	return &core.KindError{Kind: kind, Err: err}
}

// transportFailed tells grpc-go's own Unavailable (refused, reset, closed) from
// one a server chose to send.
func transportFailed(message string) bool {
	for _, sign := range []string{"connection", "transport", "EOF", "closing", "refused", "reset"} {
		if strings.Contains(message, sign) {
			return true
		}
	}
	return false
}

// snake spells a code as the gRPC status name in lower case: DeadlineExceeded ->
// deadline_exceeded.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// StatusName spells a code as gRPC names it: DeadlineExceeded -> DEADLINE_EXCEEDED.
func StatusName(code codes.Code) string { return strings.ToUpper(snake(code.String())) }
