// Package target is the native driver of `rpcarena target`: servers rpcarena
// did not start, called as the spec's `external` description says (gRPC with
// dynamic messages from a descriptor set, or HTTP/1.1 and HTTP/2 with requests
// rendered before measuring), every reply checked as external/checks.py does.
package target

import (
	"encoding/json"
	"fmt"
	"runtime"

	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc"
)

// Contender is the target driver's entry in the registry: a client only.
var Contender = core.Contender{
	ID:        "target-go",
	Protocol:  "target",
	Tool:      core.Tool{Name: "rpcarena-target-go", Version: grpc.Version, Runtime: runtime.Version()},
	NewClient: NewClient,
}

// description is the spec's `external` object, as rpcarena.targets builds it.
type description struct {
	Kind             string          `json:"kind"`
	ExpectStatus     json.RawMessage `json:"expect_status"`
	DescriptorSetB64 string          `json:"descriptor_set_b64"`
	HTTP2            bool            `json:"http2"`
	StreamMessages   int             `json:"stream_messages"`
	TLS              *tlsSettings    `json:"tls"`      // nil: plaintext
	Metadata         [][]string      `json:"metadata"` // gRPC: [key, value] sent with every call
}

// NewClient reads the description and prepares the client of its kind.
func NewClient(spec *core.Spec) (core.Client, error) {
	if len(spec.External) == 0 {
		return nil, fmt.Errorf("a target spec needs its external description")
	}
	var d description
	if err := json.Unmarshal(spec.External, &d); err != nil {
		return nil, fmt.Errorf("bad external description: %v", err)
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	checks, err := decodeChecks(spec.Responses)
	if err != nil {
		return nil, err
	}
	switch d.Kind {
	case "grpc":
		return newGrpcClient(spec, d, checks)
	case "http":
		return newHTTPClient(spec, d, checks)
	}
	return nil, fmt.Errorf("target kind %q: the Go driver calls grpc and http targets", d.Kind)
}
