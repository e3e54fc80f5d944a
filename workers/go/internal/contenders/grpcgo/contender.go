// Package grpcgo is the grpc-go contender: the arena.Arena gRPC server (and,
// given a Redis, predictions.Predictions) and a client driver with one
// grpc.ClientConn per client.
package grpcgo

import (
	"runtime"

	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc"
)

// Contender is grpc-go's entry in the registry.
var Contender = core.Contender{
	ID:        "grpc-go",
	Protocol:  "grpc",
	Tool:      core.Tool{Name: "grpc-go", Version: grpc.Version, Runtime: runtime.Version()},
	NewServer: NewServer,
	NewClient: NewClient,
}
