package connectgo

import (
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
)

// message carries a generated message through connect's generic handlers and
// clients, whose types are fixed at compile time while the method is chosen at
// run time (the arena's by name, a user's from its schema). Its ProtoReflect is
// the generated message's, so connect's codecs (proto.Marshal, protojson) read
// and write the generated type itself; connect's initializer options put the
// method's type in, as they do for dynamicpb, which this worker never uses.
type message struct{ proto.Message }

// initializer fills connect's empty message with a new one of the method's type.
func initializer(newMessage func() proto.Message) func(connect.Spec, any) error {
	return func(_ connect.Spec, m any) error {
		holder, ok := m.(*message)
		if !ok {
			return fmt.Errorf("connectgo: message of type %T", m)
		}
		holder.Message = newMessage()
		return nil
	}
}
