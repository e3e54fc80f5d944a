// Package userschema serves and calls a user's own method (`rpcarena run
// --proto F --method pkg.Service/Call`) with the Go code protoc-gen-go
// generated from that schema: a per-schema build links it in (cmd/schemagen,
// internal/userpb), so its messages are in protoregistry.GlobalTypes and the
// worker finds them by the method descriptor's names, never through dynamicpb.
// The server reads the file rpcarena writes for the run (`serve --schema
// PATH`, Load); the drivers get the method by its key (Lookup).
package userschema

import (
	"fmt"
	"strings"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// notBuilt says how a worker gets a schema's generated code.
const notBuilt = "this worker was not built with the schema: rpcarena builds a variant of the Go worker per schema (worker.json schema_build)"

// SpecMethod is a drive spec's method: the arena's by name, or the user's
// ("pkg.Service/Method") from this build's generated code when the spec
// carries the user's schema.
func SpecMethod(spec *core.Spec) (arena.Method, error) {
	if spec.User() {
		return Lookup(spec.Method)
	}
	return arena.LookupMethod(spec.Method)
}

// Lookup finds the user's method "pkg.Service/Method" with its generated types.
func Lookup(key string) (arena.Method, error) {
	service, name, ok := strings.Cut(key, "/")
	if !ok || service == "" || name == "" {
		return arena.Method{}, fmt.Errorf("bad user method %q: give package.Service/Method", key)
	}
	found, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	sd, isService := found.(protoreflect.ServiceDescriptor)
	if err != nil || !isService {
		return arena.Method{}, fmt.Errorf("no service %s: %s", service, notBuilt)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return arena.Method{}, fmt.Errorf("service %s has no method %s: %s", service, name, notBuilt)
	}
	method, err := arena.MethodOf(md)
	if err != nil {
		return arena.Method{}, fmt.Errorf("%s: %s", key, notBuilt)
	}
	return method, nil
}
