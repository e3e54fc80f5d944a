package nfq

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// KernelDrops are the kernel's own drop counts for a queue, from
// /proc/net/netfilter/nfnetlink_queue of the current network namespace.
type KernelDrops struct {
	QueueFull  uint64 `json:"kernel_queue_full"`  // the queue held KernelQueueLen packets
	SocketFull uint64 `json:"kernel_socket_full"` // the netlink socket had no room
}

// ReadKernelDrops reads the counts of every bound queue; a queue that is not bound has none.
func ReadKernelDrops() (map[uint16]KernelDrops, error) {
	f, err := os.Open("/proc/net/netfilter/nfnetlink_queue")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseKernelDrops(f)
}

// parseKernelDrops reads lines of "queue portid total copy_mode copy_range queue_dropped
// user_dropped id_sequence 1".
func parseKernelDrops(r io.Reader) (map[uint16]KernelDrops, error) {
	out := map[uint16]KernelDrops{}
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		var queue uint16
		var portID, total, mode, copyRange, seq, one uint64
		var d KernelDrops
		if _, err := fmt.Sscan(strings.TrimSpace(lines.Text()), &queue, &portID, &total, &mode, &copyRange,
			&d.QueueFull, &d.SocketFull, &seq, &one); err == nil {
			out[queue] = d
		}
	}
	return out, lines.Err()
}
