package tagless

import (
	"errors"
	"fmt"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Method is one unary rpc of arena.Arena; its index in the table is the
// request frame's kind, so no name travels (streaming rpcs are left out).
type Method struct {
	Name              string
	Request, Response *MessageCodec
	reqType, respType protoreflect.MessageType
	call              arena.Handler // what the operation computes, in internal/arena
}

// NewRequest and NewResponse are empty generated messages of the method's types.
func (m *Method) NewRequest() proto.Message  { return m.reqType.New().Interface() }
func (m *Method) NewResponse() proto.Message { return m.respType.New().Interface() }

var table = mustTable()

// Methods is the method table, in the service's order.
func Methods() []*Method { return table }

// MethodIndex is the frame kind of a unary rpc.
func MethodIndex(name string) (int, error) {
	for i, m := range table {
		if m.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("tagless has no unary method %q of arena.Arena", name)
}

func mustTable() []*Method {
	methods := pb.File_arena_proto.Services().ByName("Arena").Methods()
	var out []*Method
	for i := range methods.Len() {
		md := methods.Get(i)
		if md.IsStreamingClient() || md.IsStreamingServer() {
			continue
		}
		out = append(out, mustMethod(md))
	}
	return out
}

func mustMethod(md protoreflect.MethodDescriptor) *Method {
	request, errIn := CodecOf(md.Input())
	response, errOut := CodecOf(md.Output())
	reqType, errReq := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	respType, errResp := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	var errCall error
	call, ok := arena.Unary(string(md.Name()))
	if !ok {
		errCall = errors.New("internal/arena has no operation of this name")
	}
	if err := errors.Join(errIn, errOut, errReq, errResp, errCall); err != nil {
		// the schema itself is wrong: no server or client can start
		panic(fmt.Sprintf("tagless method %s: %v (rerun gen.sh?)", md.Name(), err))
	}
	return &Method{Name: string(md.Name()), Request: request, Response: response,
		reqType: reqType, respType: respType, call: call}
}

// fitsFrame refuses a GetRandNums whose reply could not fit in a frame: a limit
// of this transport (with a small maxFrame, as in the fuzz test), checked before
// the operation allocates, not a semantic. A count over the contract's cap is
// left to the operation, which refuses it naming the cap.
func fitsFrame(req proto.Message, maxFrame int) error {
	if r, ok := req.(*pb.RandRequest); ok && int(r.GetCount()) > maxFrame/4 && r.GetCount() <= arena.MaxCount {
		return fmt.Errorf("GetRandNums count %d exceeds %d: ask for fewer", r.GetCount(), maxFrame/4)
	}
	return nil
}
