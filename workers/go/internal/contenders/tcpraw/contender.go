// Package tcpraw is the tcp-raw floor: length-prefixed frames echoed unchanged
// over one persistent TCP connection per client, no RPC library at all.
package tcpraw

import (
	"runtime"

	"rpcarena/workers/go/internal/core"
)

// Contender is tcp-raw-go's entry in the registry.
var Contender = core.Contender{
	ID:        "tcp-raw-go",
	Protocol:  "tcp-raw",
	Tool:      core.Tool{Name: "net", Version: runtime.Version(), Runtime: runtime.Version()},
	NewServer: newServer,
	NewClient: NewClient,
}

// newServer ignores the options: an echo of bytes has no Redis to read.
func newServer(core.ServerOptions) (core.Server, error) { return NewServer(), nil }
