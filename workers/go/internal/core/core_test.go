package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&KindError{Kind: "status_503", Err: errors.New("x")}, "status_503"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), KindTimeout},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, KindConnection},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), KindConnection},
		{io.ErrUnexpectedEOF, KindConnection},
		{errors.New("something else"), KindOther},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}

func TestReadSpecFillsDefaults(t *testing.T) {
	spec, _, err := ReadSpec(strings.NewReader(`{"contract": 1, "contender": "x", "calls": 10}`))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Clients != 1 || spec.TimeoutMs != 5000 || *spec.SampleLimit != 10000 ||
		spec.Mode != ModeUnary || spec.Arrival != ArrivalConstant || spec.Sync {
		t.Errorf("defaults: %+v", spec)
	}
}

func TestReadSpecKeepsWhatFollows(t *testing.T) {
	_, rest, err := ReadSpec(strings.NewReader("{\"contract\": 1, \"calls\": 1}\ngo\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rest); string(b) != "\ngo\n" {
		t.Errorf("rest %q", b)
	}
}

func TestTimeoutIsATargetsExactMicroseconds(t *testing.T) {
	spec, _, err := ReadSpec(strings.NewReader(
		`{"contract": 1, "calls": 1, "timeout_ms": 1, "external": {"kind": "http", "timeout_us": 500}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.Timeout(); got.Microseconds() != 500 {
		t.Errorf("timeout %v, want 500µs from external.timeout_us", got)
	}
	plain, _, err := ReadSpec(strings.NewReader(`{"contract": 1, "calls": 1, "timeout_ms": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.Timeout(); got.Milliseconds() != 7 {
		t.Errorf("timeout %v, want timeout_ms's 7ms", got)
	}
}
