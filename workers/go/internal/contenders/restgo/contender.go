// Package restgo is the rest-go contender: the contract's HTTP/JSON mapping
// (POST /arena/{Method}) on net/http with encoding/json, and a net/http client
// driver with one keep-alive connection per client.
package restgo

import (
	"runtime"

	"rpcarena/workers/go/internal/core"
)

// Contender is rest-go's entry in the registry.
var Contender = core.Contender{
	ID:        "rest-go",
	Protocol:  "http-json",
	Tool:      core.Tool{Name: "net/http+encoding/json", Version: runtime.Version(), Runtime: runtime.Version()},
	NewServer: NewServer,
	NewClient: NewClient,
}

// NewConnection is go-newconn's entry: rest-go's client, a new TCP connection per
// call, no server of its own (it drives any http-json server, as py-newconn does).
var NewConnection = core.Contender{
	ID:        "go-newconn",
	Protocol:  "http-json",
	Tool:      core.Tool{Name: "net/http (DisableKeepAlives)+encoding/json", Version: runtime.Version(), Runtime: runtime.Version()},
	NewClient: NewConnectionClient,
}
