package topology

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// In runs fn on an OS thread inside network namespace ns. The sockets fn creates
// (net.Dial, net.Listen, with IP literals so no resolver goroutine is involved) belong
// to ns and keep working from any goroutine afterwards.
func In(ns string, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // unlocked only once the thread is back in its own namespace
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- err
			return
		}
		defer own.Close()
		if err := enter(ns); err != nil {
			done <- err
			return
		}
		err = fn()
		if back := unix.Setns(int(own.Fd()), unix.CLONE_NEWNET); back != nil {
			done <- fmt.Errorf("cannot leave namespace %s: %w", ns, back) // the locked thread dies with us
			return
		}
		runtime.UnlockOSThread()
		done <- err
	}()
	return <-done
}

func enter(ns string) error {
	target, err := os.Open("/run/netns/" + ns)
	if err != nil {
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("cannot enter namespace %s: %w", ns, err)
	}
	return nil
}

// ForceReadBuffer gives a socket a receive buffer of `bytes`, past net.core.rmem_max
// (root only): a receiver that falls behind for a moment must not drop what it measures.
func ForceReadBuffer(c syscall.Conn, bytes int) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, bytes)
	}); err != nil {
		return err
	}
	return sockErr
}
