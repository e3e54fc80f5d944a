package tagless

import (
	"context"
	"fmt"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/protobuf/proto"
)

// UserKind is the frame kind of a user's method (`rpcarena run --proto`): one
// past any index of arena.Arena's, as src/rpcarena/contenders/framed.py sends it.
const UserKind = 0xFFFF

// methodAt is the method of a frame kind: the arena's by index, the user's at
// UserKind (when the server serves one), else nil.
func methodAt(kind uint16, user *Method) *Method {
	if kind == UserKind && user != nil {
		return user
	}
	if int(kind) < len(table) {
		return table[kind]
	}
	return nil
}

// newUserMethod is the user's method with tagless codecs built from its
// generated messages' descriptors, as the Python tagless builds them from the
// same schema; call is the server's answer (nil for a client).
func newUserMethod(m arena.Method, call arena.Handler) (*Method, error) {
	reqType, respType := m.NewRequest().ProtoReflect().Type(), m.NewResponse().ProtoReflect().Type()
	request, err := CodecOf(reqType.Descriptor())
	if err != nil {
		return nil, fmt.Errorf("tagless cannot carry %s: %v", reqType.Descriptor().FullName(), err)
	}
	response, err := CodecOf(respType.Descriptor())
	if err != nil {
		return nil, fmt.Errorf("tagless cannot carry %s: %v", respType.Descriptor().FullName(), err)
	}
	return &Method{Name: m.Service + "/" + m.Name, Request: request, Response: response,
		reqType: reqType, respType: respType, call: call}, nil
}

// answering is the server's side of the user's method: decode, then the
// handler's cost and answer; a request it cannot answer is a bad request.
func answering(h *userschema.Handler) arena.Handler {
	return func(_ context.Context, decode func(proto.Message) error) (proto.Message, error) {
		request := h.Method.NewRequest()
		if err := decode(request); err != nil {
			return nil, err
		}
		reply, err := h.Answer(request)
		if err != nil {
			return nil, badRequest{err}
		}
		return reply, nil
	}
}
