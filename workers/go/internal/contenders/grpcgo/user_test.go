package grpcgo_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"rpcarena/workers/go/internal/contenders/grpcgo"
	"rpcarena/workers/go/internal/core"
)

// predictions.Predictions stands in for a user's service here: its generated
// code is linked into the test, and without a Redis the server leaves it free.
const userServed = `{"method": "predictions.Predictions/GetPredictions", "reply": "file",
	"pairs": [[{"id_client": "a"}, {"predictions": [{"class_name": "x", "value": 0.5}]}],
	          [{"id_client": "b"}, {"predictions": [{"class_name": "y", "value": 0.25}]}]],
	"server_work_us": 20, "server_wait_us": 0}`

func userServer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "served.json")
	if err := os.WriteFile(path, []byte(userServed), 0o644); err != nil {
		t.Fatal(err)
	}
	return startServer(t, core.ServerOptions{Schema: path}).Target()
}

func userSpec(target string, responses ...string) *core.Spec {
	spec := &core.Spec{Target: target, Method: "predictions.Predictions/GetPredictions", Mode: core.ModeUnary,
		SchemaB64: "set", Requests: []json.RawMessage{[]byte(`{"id_client": "a"}`), []byte(`{"id_client": "b"}`)}}
	for _, r := range responses {
		spec.Responses = append(spec.Responses, json.RawMessage(r))
	}
	return spec
}

// The run-time service answers each request with its pair; the client checks
// every reply against the expected one, and a wrong expectation does not match.
func TestAUserMethodIsServedAndEveryReplyChecked(t *testing.T) {
	target := userServer(t)
	right := `{"predictions": [{"class_name": "x", "value": 0.5}]}`
	wrong := `{"predictions": [{"class_name": "x", "value": 0.75}]}`
	client, err := grpcgo.NewClient(userSpec(target, right, wrong))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := client.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	matched := []bool{}
	for idx := range client.Len() {
		reply, err := conn.Call(context.Background(), idx)
		if err != nil {
			t.Fatal(err)
		}
		matched = append(matched, client.Matches(idx, reply))
	}
	if !matched[0] || matched[1] {
		t.Fatalf("matched %v: want the right reply matched and the wrong one not", matched)
	}
}

func TestAUserMethodNotBuiltInIsAnError(t *testing.T) {
	spec := userSpec("127.0.0.1:1", `{}`, `{}`)
	spec.Method = "orders.Orders/Place"
	if _, err := grpcgo.NewClient(spec); err == nil {
		t.Fatal("a method whose generated code is not linked in must not be called")
	}
}
