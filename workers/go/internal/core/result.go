package core

// Result is the drive document of the contract, written once to stdout.
type Result struct {
	Contract             int              `json:"contract"`
	Calls                int64            `json:"calls"`
	Errors               map[string]int64 `json:"errors"`
	WallS                float64          `json:"wall_s"`
	CPUUserS             float64          `json:"cpu_user_s"`
	CPUSysS              float64          `json:"cpu_sys_s"`
	Histogram            string           `json:"histogram"`
	Samples              [][2]int64       `json:"samples"`
	HistogramUncorrected *string          `json:"histogram_uncorrected"`
	LateCalls            int64            `json:"late_calls"`
	Tool                 Tool             `json:"tool"`
}
