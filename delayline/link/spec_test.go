package link

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		spec string
		want Config
	}{
		{"rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000",
			Config{RTT: 40 * time.Millisecond, Jitter: 4 * time.Millisecond, Loss: 0.001, RateBitsPerS: 100e6, QueuePackets: 1000}},
		{"100mbit", Config{RateBitsPerS: 100e6, QueuePackets: DefaultQueuePackets}},
		{" 512KBit ", Config{RateBitsPerS: 512e3, QueuePackets: DefaultQueuePackets}},
		{"rtt=1.5ms", Config{RTT: 1500 * time.Microsecond, QueuePackets: DefaultQueuePackets}},
		{"rtt=200us,rate=1gbit", Config{RTT: 200 * time.Microsecond, RateBitsPerS: 1e9, QueuePackets: DefaultQueuePackets}},
		{"queue=64kb,rtt=10ms", Config{RTT: 10 * time.Millisecond, QueueBytes: 64000}},
		{"queue=1mib", Config{QueueBytes: 1 << 20}},
		{"queue=50p", Config{QueuePackets: 50}},
		{"loss=5%,reorder", Config{Loss: 0.05, QueuePackets: DefaultQueuePackets, Reorder: true}},
		{"reorder=false,rtt=0", Config{QueuePackets: DefaultQueuePackets}},
		{"loss=100%", Config{Loss: 1, QueuePackets: DefaultQueuePackets}},
	}
	for _, c := range cases {
		got, err := Parse(c.spec)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
		}
	}
}

func TestParseErrorsNameTheFix(t *testing.T) {
	cases := []struct{ spec, hint string }{
		{"", "give one such as rtt=40ms"},
		{"loss=0.1", "such as loss=0.1%"},
		{"loss=101%", "from 0% to 100%"},
		{"rate=100mb", "such as rate=100mbit"},
		{"100mb", "unknown key \"100mb\""},
		{"rtt=40", "such as rtt=40ms"},
		{"jitter=-1ms", "such as jitter=40ms"},
		{"delay=40ms", "use rtt, jitter, loss, rate, queue or reorder"},
		{"rtt=1ms,rtt=2ms", "rtt is given twice"},
		{"queue=0", "at least 1"},
		{"queue=10q", "give packets (queue=1000) or bytes"},
		{"queue=100b", "give at least queue=1500b"},
		{"reorder=maybe", "write reorder"},
		{"rate=1bit", "at least 8bit"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.hint) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error = %v; want one line containing %q", c.spec, err, c.hint)
		}
	}
}

func TestStringIsCanonical(t *testing.T) {
	c, _ := Parse("rate=100mbit,rtt=40ms,loss=0.1%,jitter=4ms")
	if got, want := c.String(), "rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c, _ = Parse("rate=1500kbit,queue=64kb")
	if got, want := c.String(), "rtt=0s,jitter=0s,loss=0%,rate=1500kbit,queue=64000b"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestStringParsesBack(t *testing.T) {
	for _, spec := range []string{"rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000",
		"20mbit", "queue=64kb,loss=5%,reorder", "rtt=1.5ms,rate=512kbit,queue=3p"} {
		c, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(c.String())
		if err != nil || again != c {
			t.Errorf("Parse(%q) = %+v, but Parse(%q) = %+v, %v", spec, c, c.String(), again, err)
		}
	}
}
