package userschema

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Calibration of the CPU spin, as src/rpcarena/userschema/work.py does it: the
// loop runs in chunks of chunkUs of CPU (or a twentieth of the work if less),
// so the thread's clock is read a few dozen times a call.
const (
	calibrationRounds = 5
	calibrationLoops  = 200_000
	chunkUs           = 10.0
)

var sink uint64 // keeps the spin from being optimized away

func spin(loops int) {
	total := uint64(0)
	for i := range loops {
		total += uint64(i) * uint64(i) % 7
	}
	sink += total
}

// threadCPU is the calling OS thread's own CPU time: the spin counts CPU, not
// wall time that a preempted server would stretch.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// loopsPerUs is how many spin loops this thread runs in a microsecond of its CPU.
func loopsPerUs() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1<<63 - 1)
	for range calibrationRounds {
		start := threadCPU()
		spin(calibrationLoops)
		best = min(best, threadCPU()-start)
	}
	return calibrationLoops / max(float64(best)/1000, 1e-3)
}

// Cost is what a handler runs before it answers: workUs of its own thread's CPU
// (the goroutine locked to its OS thread meanwhile, so the clock is its own),
// then waitUs asleep, as a database call waits; and the calibration line.
func Cost(workUs, waitUs float64) (func(), string) {
	if workUs == 0 && waitUs == 0 {
		return func() {}, "no server work or wait"
	}
	rate := 0.0
	if workUs > 0 {
		rate = loopsPerUs()
	}
	chunk := max(1, int(min(chunkUs, workUs/20)*rate+0.5))
	work, wait := time.Duration(workUs*1000), time.Duration(waitUs*1000)
	cost := func() {
		if work > 0 {
			runtime.LockOSThread()
			for start := threadCPU(); threadCPU()-start < work; {
				spin(chunk)
			}
			runtime.UnlockOSThread()
		}
		if wait > 0 {
			time.Sleep(wait)
		}
	}
	return cost, fmt.Sprintf("server work %gus of thread CPU, in chunks of %d loops (%.1f loops/us), wait %gus",
		workUs, chunk, rate, waitUs)
}

// Calibration is what `worker calibrate` prints: the handler's cost run alone.
type Calibration struct {
	AskedUs     float64 `json:"asked_us"`
	Calls       int     `json:"calls"`
	ThreadCPUNs int64   `json:"thread_cpu_ns"` // over all the calls
	Setup       string  `json:"calibration"`   // the line a server logs
}

// Calibrate runs Cost's work calls times on one OS thread and measures that
// thread's CPU over them.
func Calibrate(workUs float64, calls int) Calibration {
	cost, setup := Cost(workUs, 0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	for range calls {
		cost()
	}
	return Calibration{AskedUs: workUs, Calls: calls, ThreadCPUNs: int64(threadCPU() - start), Setup: setup}
}
