package tcpraw

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/connserver/connservertest"
	"rpcarena/workers/go/internal/vectors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func dialServer(t *testing.T) net.Conn {
	t.Helper()
	return connservertest.Dial(t, NewServer())
}

// The floor has no semantics: every vector's protobuf request comes back unchanged.
func TestServerEchoesEveryVectorPayload(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := dialServer(t)
	var buf []byte
	for i, v := range vs {
		m, _ := arena.LookupMethod(v.Method)
		req := m.NewRequest()
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			t.Fatal(err)
		}
		payload, _ := proto.Marshal(req)
		sent := frame(payload)
		if _, err := c.Write(sent); err != nil {
			t.Fatal(err)
		}
		if buf, err = readFrame(c, buf); err != nil || !bytes.Equal(buf, sent) {
			t.Fatalf("vector %d: echo differs (%v)", i, err)
		}
	}
}

func TestServerClosesOnOversizedFrame(t *testing.T) {
	c := dialServer(t)
	c.Write(binary.BigEndian.AppendUint32(nil, maxFrame+1))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after a frame over 64 MiB")
	}
}
