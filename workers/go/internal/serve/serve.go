// Package serve runs one contender's server per the contract's `serve`: bind,
// print the ready line, serve until SIGTERM or stdin closes.
package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"rpcarena/workers/go/internal/core"
)

// ready is the one line printed once the server accepts connections.
type ready struct {
	Event    string `json:"event"`
	Port     int    `json:"port"`
	PID      int    `json:"pid"`
	Contract int    `json:"contract"`
}

// Run serves c on host:port. It returns when asked to stop (nil), or with the
// server's setup, bind or serve error.
func Run(c core.Contender, host string, port int, opts core.ServerOptions, stdin io.Reader, stdout io.Writer) error {
	srv, err := c.NewServer(opts)
	if err != nil {
		return fmt.Errorf("%s: %v", c.ID, err)
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		srv.Stop()
		return fmt.Errorf("cannot bind %s:%d: %v", host, port, err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	line, _ := json.Marshal(ready{"ready", lis.Addr().(*net.TCPAddr).Port, os.Getpid(), core.ContractVersion})
	fmt.Fprintf(stdout, "%s\n", line)
	select {
	case err = <-served:
	case <-stopRequested(stdin):
	}
	srv.Stop()
	return err
}

// stopRequested delivers once SIGTERM or SIGINT arrives or stdin reaches its end.
func stopRequested(stdin io.Reader) <-chan struct{} {
	stop := make(chan struct{}, 2) // both senders may fire; nobody blocks
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-signals
		stop <- struct{}{}
	}()
	go func() {
		io.Copy(io.Discard, stdin)
		stop <- struct{}{}
	}()
	return stop
}
