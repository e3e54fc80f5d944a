// Package limits holds the bounds every server keeps against a hostile peer
// (docs/worker-contract.md, "Bounds every server keeps"): the largest request a
// server reads, and how long a connection may stay idle or refuse its replies.
package limits

import (
	"os"
	"strconv"
	"time"
)

// MaxRequestBytes is the largest request any server reads: a gRPC message, an
// HTTP body, an own-protocol frame. The largest workload request is about
// 120 KB (Average of 10,000 int32 as JSON): 4 MiB is gRPC's default and over
// thirty times that.
const MaxRequestBytes = 4 << 20

// IdleEnv names the setting that lowers IdleTimeout, so a test can see an idle
// connection closed in a second instead of a minute.
const IdleEnv = "RPCARENA_IDLE_TIMEOUT_S"

// defaultIdle is the contract's idle and write timeout.
const defaultIdle = 60 * time.Second

// IdleTimeout is how long a connection may send nothing, or take none of its
// replies, before the server closes it: 60 s, or RPCARENA_IDLE_TIMEOUT_S
// seconds when that holds a positive number.
func IdleTimeout() time.Duration {
	seconds, err := strconv.ParseFloat(os.Getenv(IdleEnv), 64)
	if err != nil || !(seconds > 0) || seconds > defaultIdle.Seconds() {
		return defaultIdle
	}
	return time.Duration(seconds * float64(time.Second))
}
