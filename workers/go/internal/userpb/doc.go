// Package userpb holds the code protoc-gen-go generates from a user's schema
// (`rpcarena run --proto F`). It is empty in the worker built from this tree:
// the per-schema variant adds the generated files with `go build -overlay`
// (cmd/schemagen writes the overlay), and the blank import in cmd/worker
// links them in, so their messages register in protoregistry.GlobalTypes.
package userpb
