// Package userpb links in the code protoc-gen-go generates from a user's
// schema (`rpcarena run --proto F`). It is empty in the worker built from this
// tree: the per-schema variant adds, with `go build -overlay` (cmd/schemagen
// writes the overlay), a Go package under it per proto package and a file of
// blank imports of them here; the blank import in cmd/worker links them in,
// so their messages register in protoregistry.GlobalTypes.
package userpb
