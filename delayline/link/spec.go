// Package link is the model of an emulated network link: its configuration
// (parsed from a spec such as "rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000")
// and the per-packet schedule that says when each packet leaves, or why it is dropped.
//
// Nothing here touches the network or reads the clock: times are given to it,
// so the schedule is tested from tables with made-up arrival times.
package link

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultQueuePackets is the queue limit when a spec names none: a veth's txqueuelen.
const DefaultQueuePackets = 1000

// Config is one direction's link; both directions of a delay line get the same one.
type Config struct {
	RTT          time.Duration // round trip: each direction adds RTT/2
	Jitter       time.Duration // standard deviation of each direction's delay
	Loss         float64       // probability that a packet is dropped, 0..1
	RateBitsPerS int64         // 0 = unlimited
	QueuePackets int           // tail-drop limit in packets (0 = none, then QueueBytes is set)
	QueueBytes   int64         // tail-drop limit in bytes (0 = none)
	Reorder      bool          // let jitter reorder packets
}

// OneWay is the configured delay of one direction, before jitter.
func (c Config) OneWay() time.Duration { return c.RTT / 2 }

// String gives the canonical spec; Parse(c.String()) == c.
func (c Config) String() string {
	parts := []string{"rtt=" + c.RTT.String(), "jitter=" + c.Jitter.String(),
		"loss=" + strconv.FormatFloat(c.Loss*100, 'g', 10, 64) + "%"}
	if c.RateBitsPerS > 0 {
		parts = append(parts, "rate="+formatRate(c.RateBitsPerS))
	}
	if c.QueueBytes > 0 {
		parts = append(parts, fmt.Sprintf("queue=%db", c.QueueBytes))
	} else {
		parts = append(parts, fmt.Sprintf("queue=%d", c.QueuePackets))
	}
	if c.Reorder {
		parts = append(parts, "reorder")
	}
	return strings.Join(parts, ",")
}

// formatRate writes bits per second in the largest of tc's units that keeps it whole.
func formatRate(bits int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if bits%u.size == 0 {
			return fmt.Sprintf("%d%s", bits/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dbit", bits)
}

// SpecError is a spec that cannot be parsed; its message says how to write it.
type SpecError struct{ Msg string }

func (e *SpecError) Error() string { return e.Msg }

func specErr(format string, args ...any) error { return &SpecError{fmt.Sprintf(format, args...)} }

var rateRe = regexp.MustCompile(`^([0-9]*\.?[0-9]+)(bit|kbit|mbit|gbit)$`)

// Parse reads "rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000[,reorder]",
// or a bare rate such as "100mbit". Keys may come in any order; all are optional.
func Parse(spec string) (Config, error) {
	c := Config{QueuePackets: DefaultQueuePackets}
	spec = strings.ToLower(strings.TrimSpace(spec))
	if spec == "" {
		return c, specErr("empty link spec: give one such as rtt=40ms,jitter=4ms,loss=0.1%%,rate=100mbit,queue=1000")
	}
	if rateRe.MatchString(spec) {
		return c, setKey(&c, "rate", spec)
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(item), "=")
		if seen[key] {
			return c, specErr("%s is given twice in %q: keep one", key, spec)
		}
		seen[key] = true
		if err := setKey(&c, key, strings.TrimSpace(value)); err != nil {
			return c, err
		}
	}
	return c, c.check()
}

func setKey(c *Config, key, value string) (err error) {
	switch key {
	case "rtt":
		c.RTT, err = parseDuration(key, value)
	case "jitter":
		c.Jitter, err = parseDuration(key, value)
	case "loss":
		c.Loss, err = parseLoss(value)
	case "rate":
		c.RateBitsPerS, err = parseRate(value)
	case "queue":
		c.QueuePackets, c.QueueBytes, err = parseQueue(value)
	case "reorder":
		c.Reorder, err = parseBool(value)
	default:
		err = specErr("unknown key %q in the link spec: use rtt, jitter, loss, rate, queue or reorder", key)
	}
	return err
}

func parseDuration(key, value string) (time.Duration, error) {
	d, err := time.ParseDuration(value)
	if err != nil || d < 0 {
		return 0, specErr("bad %s=%q: give a duration such as %s=40ms, 1.5ms or 200us", key, value, key)
	}
	return d, nil
}

func parseLoss(value string) (float64, error) {
	number, ok := strings.CutSuffix(value, "%")
	p, err := strconv.ParseFloat(number, 64)
	if !ok || err != nil || p < 0 || p > 100 || math.IsNaN(p) {
		return 0, specErr("bad loss=%q: give a percentage from 0%% to 100%%, such as loss=0.1%%", value)
	}
	return p / 100, nil
}

var rateUnits = map[string]float64{"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}

// parseRate reads tc's decimal units: 512kbit, 20mbit, 1gbit.
func parseRate(value string) (int64, error) {
	m := rateRe.FindStringSubmatch(value)
	if m == nil {
		return 0, specErr("bad rate=%q: give bits per second such as rate=100mbit, 512kbit or 1gbit", value)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	bits := int64(n * rateUnits[m[2]])
	if bits < 8 {
		return 0, specErr("bad rate=%q: give at least 8bit (one byte per second)", value)
	}
	return bits, nil
}

var queueRe = regexp.MustCompile(`^([0-9]+)(|p|pkt|packets|b|kb|kib|mb|mib)$`)
var byteUnits = map[string]int64{"b": 1, "kb": 1000, "kib": 1024, "mb": 1000 * 1000, "mib": 1024 * 1024}

// parseQueue reads a packet count (queue=1000, queue=1000p) or a byte size (queue=64kb, queue=1mib).
func parseQueue(value string) (packets int, bytes int64, err error) {
	m := queueRe.FindStringSubmatch(value)
	n, convErr := int64(0), error(nil)
	if m != nil {
		n, convErr = strconv.ParseInt(m[1], 10, 32)
	}
	if m == nil || convErr != nil || n < 1 {
		return 0, 0, specErr("bad queue=%q: give packets (queue=1000) or bytes (queue=64kb, queue=1mib), at least 1", value)
	}
	if unit, ok := byteUnits[m[2]]; ok {
		return 0, n * unit, nil
	}
	return int(n), 0, nil
}

func parseBool(value string) (bool, error) {
	switch value {
	case "", "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, specErr("bad reorder=%q: write reorder (or reorder=false)", value)
}

// check refuses a queue in bytes smaller than one full-size packet, which would drop everything.
func (c Config) check() error {
	if c.QueueBytes > 0 && c.QueueBytes < 1500 {
		return specErr("queue=%db holds no full-size packet: give at least queue=1500b", c.QueueBytes)
	}
	return nil
}
