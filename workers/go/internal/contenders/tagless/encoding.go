package tagless

import "google.golang.org/protobuf/proto"

// Codec writes and reads one message type's frame body.
type Codec interface {
	Append(out []byte, m proto.Message) ([]byte, error)
	Decode(body []byte, m proto.Message) error
}

// Encoding is what the frame bodies of a method hold. The frames, the
// connection handling and the operations are this package's for every
// encoding: proto-frames-go keeps them and swaps tagless's codec for
// protobuf's, so tagless-go against it is the encoding alone, and it against
// grpc-go the transport alone.
type Encoding func(m *Method) (request, response Codec)

// Tagless is tagless-go's encoding: schema-ordered fields, no tags.
func Tagless(m *Method) (request, response Codec) {
	return taglessCodec{m.Request}, taglessCodec{m.Response}
}

type taglessCodec struct{ *MessageCodec }

func (c taglessCodec) Append(out []byte, m proto.Message) ([]byte, error) {
	return c.Encode(out, m), nil
}
