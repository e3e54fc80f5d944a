package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-link", "rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit", "-queues", "3,4", "-seed", "9",
		"-max-runtime", "1m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.link.RTT != 40*time.Millisecond || len(o.queues) != 2 || o.queues[1] != 4 || o.seed != 9 ||
		!o.stdinLifeline || o.maxRuntime != time.Minute {
		t.Errorf("parsed %+v", o)
	}
}

func TestBadFlagsExit2WithOneLineThatNamesTheFix(t *testing.T) {
	cases := []struct {
		args []string
		hint string
	}{
		{nil, "pass one such as -link rtt=40ms"},
		{[]string{"-link", "rtt=40"}, "such as rtt=40ms"},
		{[]string{"-link", "100mbit", "-queues", "0,0"}, "distinct queue numbers"},
		{[]string{"-link", "100mbit", "-queues", "70000"}, "0-65535"},
		{[]string{"-link", "100mbit", "extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || !strings.Contains(lines[len(lines)-1], c.hint) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and a line with %q", c.args, code, stderr.String(), stdout.String(), c.hint)
		}
	}
}
