package connectgo

import (
	"fmt"

	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// descriptorOf is method's descriptor, which connect's WithSchema takes (as
// protoc-gen-connect-go's code passes it): the arena's, or the user's, from
// the files this build links in.
func descriptorOf(method arena.Method) (protoreflect.MethodDescriptor, error) {
	found, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(method.Service))
	service, ok := found.(protoreflect.ServiceDescriptor)
	if err != nil || !ok {
		return nil, fmt.Errorf("no service %s in this build", method.Service)
	}
	md := service.Methods().ByName(protoreflect.Name(method.Name))
	if md == nil {
		return nil, fmt.Errorf("service %s has no method %s", method.Service, method.Name)
	}
	return md, nil
}
