package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// ContractVersion is the worker contract this worker speaks.
const ContractVersion = 1

// Spec is the drive document of the contract, read once from stdin.
type Spec struct {
	Contract    int               `json:"contract"`
	Contender   string            `json:"contender"`
	Target      string            `json:"target"`
	Method      string            `json:"method"`
	Requests    []json.RawMessage `json:"requests"`
	Responses   []json.RawMessage `json:"responses"`
	PayloadsB64 []string          `json:"payloads_b64"`
	Clients     int               `json:"clients"`
	WarmupS     float64           `json:"warmup_s"`
	Calls       *int64            `json:"calls"`
	DurationS   *float64          `json:"duration_s"`
	TimeoutMs   float64           `json:"timeout_ms"`
	SampleLimit *int              `json:"sample_limit"`
	RatePerS    *float64          `json:"rate_per_s"`
	Arrival     string            `json:"arrival"`
	// Stages: an open loop in steps of rate (k6's ramping arrival rate), paced
	// one after the other; RatePerS is then the first stage's, DurationS their sum.
	Stages    []Stage `json:"stages"`
	Mode      string  `json:"mode"`
	Sync      bool    `json:"sync"`
	IntervalS float64 `json:"interval_s"` // the length of each of the result's intervals
	// External describes a server rpcarena did not start (`rpcarena target`):
	// its kind, schema and checks, read by the target driver only.
	External json.RawMessage `json:"external"`
	// Connections: the connections the clients share (1 to Clients); nil: one each.
	Connections *int `json:"connections"`
	// ScheduleOffsetNs: when a cell's clients are shared over several drivers (nodes), this
	// driver's open-loop calls fall due this much after the phase's start, so the drivers'
	// calls interleave into the cell's rate rather than fall due together.
	ScheduleOffsetNs *int64 `json:"schedule_offset_ns"`
	// WarmupMaxS: how long a driver with a JIT may warm up while its compiler is busy.
	// Go compiles ahead of time: its warm-up is WarmupS, and this is read only to be kept.
	WarmupMaxS *float64 `json:"warmup_max_s"`
	// SchemaB64: the user's compiled schema when Method is one of its
	// ("pkg.Service/Method"); the messages are this build's generated ones.
	SchemaB64 string `json:"schema_b64"`
}

// User reports whether the spec calls a method of a user's schema.
func (s *Spec) User() bool { return s.SchemaB64 != "" }

// ScheduleOffset is ScheduleOffsetNs as a duration (0 when not given).
func (s *Spec) ScheduleOffset() time.Duration {
	if s.ScheduleOffsetNs == nil {
		return 0
	}
	return time.Duration(*s.ScheduleOffsetNs)
}

// Stage is one step of a staged open loop.
type Stage struct {
	RatePerS  float64 `json:"rate_per_s"`
	DurationS float64 `json:"duration_s"`
}

// Modes and arrivals of the contract.
const (
	ModeUnary  = "unary"
	ModeStream = "stream"
	// ModeClientStream, ModeServerStream: a user's one-way stream, a stream a
	// call: a request is a JSON array of messages (client), or a response is (server).
	ModeClientStream = "client_stream"
	ModeServerStream = "server_stream"
	ArrivalConstant  = "constant"
	ArrivalPoisson   = "poisson"
)

// ReadSpec decodes and checks a spec, filling the contract's defaults. It also
// returns what follows the spec on r (the sync handshake's line comes there).
func ReadSpec(r io.Reader) (*Spec, io.Reader, error) {
	spec := &Spec{Clients: 1, TimeoutMs: 5000, Arrival: ArrivalConstant, Mode: ModeUnary, IntervalS: 1}
	dec := json.NewDecoder(r)
	if err := dec.Decode(spec); err != nil {
		return nil, nil, fmt.Errorf("bad spec JSON on stdin: %v", err)
	}
	if spec.SampleLimit == nil {
		limit := 10000
		spec.SampleLimit = &limit
	}
	return spec, io.MultiReader(dec.Buffered(), r), spec.check()
}

func (s *Spec) check() error {
	switch {
	case s.Contract != ContractVersion:
		return fmt.Errorf("spec contract %d: this worker speaks contract %d", s.Contract, ContractVersion)
	case s.Clients < 1:
		return errors.New("spec clients must be at least 1")
	case s.Calls == nil && s.DurationS == nil:
		return errors.New("spec needs calls or duration_s")
	case s.Calls != nil && *s.Calls < 0, s.DurationS != nil && *s.DurationS < 0:
		return errors.New("spec calls and duration_s must not be negative")
	case s.TimeoutMs <= 0:
		return errors.New("spec timeout_ms must be positive")
	case s.RatePerS != nil && *s.RatePerS <= 0:
		return errors.New("spec rate_per_s must be positive")
	case s.IntervalS <= 0:
		return errors.New("spec interval_s must be positive")
	case s.Arrival != ArrivalConstant && s.Arrival != ArrivalPoisson:
		return fmt.Errorf("spec arrival %q: use constant or poisson", s.Arrival)
	case s.Mode != ModeUnary && s.Mode != ModeStream && s.Mode != ModeClientStream && s.Mode != ModeServerStream:
		return fmt.Errorf("spec mode %q: use unary, stream, client_stream or server_stream", s.Mode)
	case s.Connections != nil && (*s.Connections < 1 || *s.Connections > s.Clients):
		return fmt.Errorf("spec connections %d: give 1 to clients (%d)", *s.Connections, s.Clients)
	case len(s.Stages) > 0 && s.RatePerS == nil:
		return errors.New("spec stages need rate_per_s (the first stage's)")
	}
	for _, stage := range s.Stages {
		if stage.RatePerS <= 0 || stage.DurationS <= 0 {
			return errors.New("spec stages: each needs a positive rate_per_s and duration_s")
		}
	}
	return nil
}

// Timeout is the per-call timeout.
// Timeout is each call's time limit: a target's exact `external.timeout_us` when given (it may be
// below a millisecond, which the whole timeout_ms cannot say), else timeout_ms.
func (s *Spec) Timeout() time.Duration {
	var exact struct {
		TimeoutUs *int64 `json:"timeout_us"`
	}
	if len(s.External) > 0 && json.Unmarshal(s.External, &exact) == nil && exact.TimeoutUs != nil && *exact.TimeoutUs > 0 {
		return time.Duration(*exact.TimeoutUs) * time.Microsecond
	}
	return time.Duration(s.TimeoutMs * float64(time.Millisecond))
}

// Warmup is the unmeasured warm-up time.
func (s *Spec) Warmup() time.Duration { return seconds(s.WarmupS) }

// Interval is the length of each interval of the result's time series.
// Interval is the length of the result's intervals: 1 s when the spec gives none.
func (s *Spec) Interval() time.Duration {
	if s.IntervalS <= 0 {
		return time.Second
	}
	return seconds(s.IntervalS)
}

// Duration is the measured phase's length when calls is null.
func (s *Spec) Duration() time.Duration {
	if s.DurationS == nil {
		return 0
	}
	return seconds(*s.DurationS)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// RequestPairs checks that requests and responses pair up, for JSON contenders.
func (s *Spec) RequestPairs() error {
	if len(s.Requests) == 0 || len(s.Requests) != len(s.Responses) {
		return fmt.Errorf("spec needs as many responses as requests, at least one (got %d and %d)",
			len(s.Requests), len(s.Responses))
	}
	return nil
}
