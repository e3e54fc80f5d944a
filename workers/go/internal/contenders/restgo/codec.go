package restgo

import (
	"encoding/json"
	"errors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// decode reads canonical JSON into a generated message with encoding/json (it
// fills the exported fields, whose json tags are the proto field names). The
// contract lets writers send int64 as strings, which encoding/json refuses for
// an int64 field: only then does protojson, which accepts both, read it.
func decode(data []byte, m proto.Message) error {
	err := json.Unmarshal(data, m)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Value == "string" {
		proto.Reset(m)
		return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, m)
	}
	return err
}
