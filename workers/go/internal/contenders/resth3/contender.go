// Package resth3 is the rest-h3-go contender: the contract's HTTP/JSON mapping
// (POST /arena/{Method}, rest-go's very handler) over HTTP/3 on QUIC with
// quic-go's http3, and a client driver with quic-go's http3.Transport. A QUIC
// connection carries each call on a stream of its own and delivers each
// stream's bytes apart, so a lost packet holds back only the calls whose bytes
// it carried: no TCP head-of-line blocking. TLS 1.3 is part of QUIC.
package resth3

import (
	"runtime"
	"runtime/debug"

	"rpcarena/workers/go/internal/core"
)

// Contender is rest-h3-go's entry in the registry.
var Contender = core.Contender{
	ID:        "rest-h3-go",
	Protocol:  "http3-json",
	Tool:      core.Tool{Name: "quic-go/http3+encoding/json", Version: quicVersion(), Runtime: runtime.Version()},
	NewServer: NewServer,
	NewClient: NewClient,
}

// quicVersion is the version of quic-go this worker was built with.
func quicVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/quic-go/quic-go" {
				return dep.Version
			}
		}
	}
	return "unknown"
}
