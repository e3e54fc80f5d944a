// Package cli is the worker's command line: `serve` and `drive` of the worker
// contract, `list` and `calibrate`. Every error ends here, as one line on stderr.
package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/drive"
	"rpcarena/workers/go/internal/registry"
	"rpcarena/workers/go/internal/serve"
	"rpcarena/workers/go/internal/userschema"
)

// Exit codes: a spec or command line that cannot run is 2 (the contract's).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

const usage = "usage: worker serve --contender ID --host 127.0.0.1 --port 0 [--redis URL] [--schema served.json] | worker drive < spec.json | worker list | worker calibrate --server-work-us W [--calls N]"

// usageError marks errors of the caller's input.
type usageError struct{ error }

// Main runs one command and returns the process's exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := dispatch(args, stdin, stdout)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "worker: %v\n", err)
	if errors.As(err, &usageError{}) {
		return exitUsage
	}
	return exitFail
}

func dispatch(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{errors.New(usage)}
	}
	switch args[0] {
	case "serve":
		return serveCmd(args[1:], stdin, stdout)
	case "drive":
		return driveCmd(stdin, stdout)
	case "list":
		return listCmd(stdout)
	case "calibrate":
		return calibrateCmd(args[1:], stdout)
	}
	return usageError{fmt.Errorf("unknown command %q; %s", args[0], usage)}
}

func serveCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	id := flags.String("contender", "", "contender id")
	host := flags.String("host", "127.0.0.1", "address to bind, and nothing else")
	port := flags.Int("port", 0, "port; 0 picks a free one")
	redis := flags.String("redis", "", "Redis URL of the predictions seed (redis://127.0.0.1:6379/0)")
	schema := flags.String("schema", "", "served.json of a user's method, written by rpcarena run --proto")
	if err := flags.Parse(args); err != nil {
		return usageError{fmt.Errorf("serve: %v; %s", err, usage)}
	}
	c, err := registry.Lookup(*id)
	if err != nil {
		return usageError{err}
	}
	return serve.Run(c, *host, *port, core.ServerOptions{Redis: *redis, Schema: *schema}, stdin, stdout)
}

func driveCmd(stdin io.Reader, stdout io.Writer) error {
	spec, rest, err := core.ReadSpec(stdin)
	if err != nil {
		return usageError{err}
	}
	c, err := registry.Lookup(spec.Contender)
	if err != nil {
		return usageError{err}
	}
	client, err := c.NewClient(spec)
	if err != nil {
		return usageError{fmt.Errorf("%s cannot run this spec: %v", c.ID, err)}
	}
	var atBarrier func()
	if spec.Sync {
		atBarrier = func() { handshake(stdout, rest) }
	}
	res, err := drive.Run(spec, client, atBarrier)
	if err != nil {
		return fmt.Errorf("encoding the result: %v", err)
	}
	res.Tool = c.Tool
	return json.NewEncoder(stdout).Encode(res)
}

func listCmd(stdout io.Writer) error {
	type entry struct {
		ID       string    `json:"id"`
		Protocol string    `json:"protocol"`
		Tool     core.Tool `json:"tool"`
	}
	var entries []entry
	for _, c := range registry.All {
		entries = append(entries, entry{c.ID, c.Protocol, c.Tool})
	}
	return json.NewEncoder(stdout).Encode(entries)
}

// calibrateCmd runs a handler's --server-work alone, as a server runs it, and
// says how much of its thread's CPU it spent: benchmarks/server_work.py checks
// each language's against the asked.
func calibrateCmd(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	workUs := flags.Float64("server-work-us", 0, "the handler's CPU a call, in microseconds")
	calls := flags.Int("calls", 1000, "how many calls")
	if err := flags.Parse(args); err != nil || *workUs <= 0 || *calls < 1 {
		return usageError{fmt.Errorf("calibrate: give --server-work-us above 0 and --calls of 1 or more; %s", usage)}
	}
	return json.NewEncoder(stdout).Encode(userschema.Calibrate(*workUs, *calls))
}

// handshake is the contract's sync: say "warm", then wait for one line on stdin
// (or its end, which also lets the run go on: nobody is left to wait for). Blank
// lines are skipped: the spec's own line ending may still be unread.
func handshake(stdout io.Writer, stdin io.Reader) {
	fmt.Fprintln(stdout, `{"event": "warm"}`)
	lines := bufio.NewScanner(stdin)
	for lines.Scan() && strings.TrimSpace(lines.Text()) == "" {
	}
}
