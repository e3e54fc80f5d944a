package grpcgo

import (
	"errors"
	"testing"

	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestTranslateNamesKinds(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{status.Error(codes.DeadlineExceeded, "x"), core.KindTimeout},
		{status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing\""), core.KindConnection},
		{status.Error(codes.Unavailable, "server is draining, try later"), "status_unavailable"},
		{status.Error(codes.ResourceExhausted, "x"), "status_resource_exhausted"},
		{status.Error(codes.Internal, "x"), "status_internal"},
		{errors.New("plain"), core.KindOther},
	}
	for _, c := range cases {
		if got := core.Classify(Translate(c.err)); got != c.want {
			t.Errorf("%v: kind %q, want %q", c.err, got, c.want)
		}
	}
}
