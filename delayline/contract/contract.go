// Package contract is what the delayline command prints on its standard output, one
// JSON object a line: first Ready (or Error), and last Exit. Other programs (the Go
// test helpers, a Python orchestrator) read these lines and nothing else.
package contract

import "rpcarena/delayline/nfq"

// Ready is printed once every queue is bound: traffic now flows through the delay line.
type Ready struct {
	Event  string   `json:"event"` // "ready"
	Queues []uint16 `json:"queues"`
	Link   string   `json:"link"` // the link model, canonical: rtt=40ms,jitter=4ms,loss=0.1%,...
	Seed   uint64   `json:"seed"`
	PID    int      `json:"pid"`
}

// Error is printed instead of Ready when the delay line cannot start.
type Error struct {
	Event string `json:"event"` // "error"
	Error string `json:"error"`
}

// Exit is printed last, after the queues are unbound.
type Exit struct {
	Event          string       `json:"event"`  // "exit"
	Reason         string       `json:"reason"` // "signal terminated", "stdin closed", "max runtime" or "error"
	Error          string       `json:"error,omitempty"`
	Queues         []QueueCount `json:"queues"`
	CPUUserUs      int64        `json:"cpu_user_us"`
	CPUSystemUs    int64        `json:"cpu_system_us"`
	CPUUsPerPacket float64      `json:"cpu_us_per_packet"` // (user + system) / packets of all queues
	WallS          float64      `json:"wall_s"`            // from Ready to Exit
}

// QueueCount is one direction's counts: what arrived, what got through, what was
// dropped and why (by the link model, or by the kernel when it could hold no more).
type QueueCount struct {
	Queue uint16 `json:"queue"`
	nfq.Counters
	nfq.KernelDrops
	LateP50Us float64 `json:"late_p50_us_le"` // upper bounds, from Counters.Late's histogram
	LateP99Us float64 `json:"late_p99_us_le"`
}

// Dropped is every drop of the queue, whatever its reason.
func (q QueueCount) Dropped() uint64 {
	return q.DroppedLoss + q.DroppedQueue + q.QueueFull + q.SocketFull
}
