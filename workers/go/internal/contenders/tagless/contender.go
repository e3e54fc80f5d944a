// Package tagless is tagless-go, the native twin of the Python tagless contender
// (HPRPC's idea): every field in schema order with no tags, the codec generated
// at startup from the arena.proto descriptors, in call-id frames over one
// persistent TCP connection per client. It speaks byte for byte what
// src/rpcarena/codec/tagless.py and src/rpcarena/codec/frames.py speak.
package tagless

import (
	"runtime"

	"rpcarena/workers/go/internal/core"
)

// Contender is tagless-go's entry in the registry.
var Contender = core.Contender{
	ID:        "tagless-go",
	Protocol:  "tagless",
	Tool:      core.Tool{Name: "tagless-go (protoreflect)", Version: runtime.Version(), Runtime: runtime.Version()},
	NewServer: func(opts core.ServerOptions) (core.Server, error) { return NewServerOf(Tagless, opts) },
	NewClient: NewClient,
}
