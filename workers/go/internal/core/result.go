package core

// Result is the drive document of the contract, written once to stdout.
// error_examples and the *_mono_ns times go beyond the contract, as the Python
// drivers' results do: rpcarena merges several driver processes with them.
type Result struct {
	Contract             int               `json:"contract"`
	Calls                int64             `json:"calls"`
	Errors               map[string]int64  `json:"errors"`
	ErrorExamples        map[string]string `json:"error_examples"`
	WallS                float64           `json:"wall_s"`
	StartMonoNs          int64             `json:"start_mono_ns"` // CLOCK_MONOTONIC at the barrier
	EndMonoNs            int64             `json:"end_mono_ns"`
	CPUUserS             float64           `json:"cpu_user_s"`
	CPUSysS              float64           `json:"cpu_sys_s"`
	Histogram            string            `json:"histogram"`
	Samples              [][2]int64        `json:"samples"`
	HistogramUncorrected *string           `json:"histogram_uncorrected"`
	// HistogramScheduleLag: open loop only, each call's lateness (due -> sent).
	HistogramScheduleLag *string `json:"histogram_schedule_lag,omitempty"`
	LateCalls            int64   `json:"late_calls"`
	// Messages and HistogramMessages: streams only, each reply message's latency
	// (from the stream's start or the message before it), beside the streams'.
	Messages          *int64  `json:"messages,omitempty"`
	HistogramMessages *string `json:"histogram_messages,omitempty"`
	// Stages: a staged open loop only, each stage's figures in the spec's order.
	Stages []StageResult `json:"stages,omitempty"`
	Tool   Tool          `json:"tool"`
	// Intervals: the measured phase over time, in order of start (see Interval).
	Intervals []Interval `json:"intervals,omitempty"`
	// With the spec's connections: those opened, the calls in flight at once
	// (max, and mean sampled at each call's start), and where calls queue for a
	// connection (a pool) each call's wait for one.
	Connections       *int     `json:"connections,omitempty"`
	InflightMax       *int64   `json:"inflight_max,omitempty"`
	InflightMean      *float64 `json:"inflight_mean,omitempty"`
	HistogramConnWait *string  `json:"histogram_conn_wait,omitempty"`
}

// StageResult is what one stage of a staged open loop measured: the calls due
// in it, timed three ways as the whole phase's are.
type StageResult struct {
	Calls                int64  `json:"calls"`
	Histogram            string `json:"histogram"`
	HistogramUncorrected string `json:"histogram_uncorrected"`
	HistogramScheduleLag string `json:"histogram_schedule_lag"`
}

// Interval is one interval of the measured phase: the calls begun (open loop:
// due) in it, from StartS seconds after the phase's start, for the spec's
// interval_s; an interval without calls or errors is left out.
type Interval struct {
	StartS    float64          `json:"start_s"`
	Calls     int64            `json:"calls"`
	Errors    map[string]int64 `json:"errors"`
	Histogram string           `json:"histogram"`
}
