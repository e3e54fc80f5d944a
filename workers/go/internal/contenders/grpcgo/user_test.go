package grpcgo_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"rpcarena/workers/go/internal/contenders/grpcgo"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/drive"
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

// The run-time service answers each request with its pair; the drive loop
// checks every reply against the expected one and counts a wrong expectation's
// calls as wrong answers, as for the built-in workloads.
func TestAUserMethodIsServedAndEveryReplyChecked(t *testing.T) {
	target := userServer(t)
	right := `{"predictions": [{"class_name": "x", "value": 0.5}]}`
	wrong := `{"predictions": [{"class_name": "x", "value": 0.75}]}`
	for _, tc := range []struct {
		second string
		wrong  int64
	}{{`{"predictions": [{"class_name": "y", "value": 0.25}]}`, 0}, {wrong, 5}} {
		spec := userSpec(target, right, tc.second)
		calls, samples := int64(10), 100 // and the defaults core.ReadSpec fills in
		spec.Calls, spec.SampleLimit, spec.Clients, spec.TimeoutMs, spec.IntervalS = &calls, &samples, 1, 5000, 1
		spec.Arrival = core.ArrivalConstant
		client, err := grpcgo.NewClient(spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := drive.Run(spec, client, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors[core.KindWrongAnswer] != tc.wrong || res.Calls+tc.wrong != calls {
			t.Errorf("expecting %s: %d calls right, errors %v; want %d wrong of %d", tc.second, res.Calls,
				res.Errors, tc.wrong, calls)
		}
	}
}

func TestAUserMethodNotBuiltInIsAnError(t *testing.T) {
	spec := userSpec("127.0.0.1:1", `{}`, `{}`)
	spec.Method = "orders.Orders/Place"
	if _, err := grpcgo.NewClient(spec); err == nil {
		t.Fatal("a method whose generated code is not linked in must not be called")
	}
}
