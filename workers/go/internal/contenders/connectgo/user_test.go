package connectgo_test

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"rpcarena/workers/go/internal/contenders/connectgo"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/drive"
)

// predictions.Predictions stands in for a user's service here: its generated
// code is linked into the test, and connect-go serves no predictions of its own.
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
	srv, err := connectgo.NewServer(core.ServerOptions{Schema: path})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// The user's method is served with its generated messages in both codecs, and
// the drive loop checks every reply: a wrong expectation's calls are wrong answers.
func TestAUserMethodIsServedAndEveryReplyChecked(t *testing.T) {
	target := userServer(t)
	right := `{"predictions": [{"class_name": "y", "value": 0.25}]}`
	wrong := `{"predictions": [{"class_name": "y", "value": 0.75}]}`
	for _, c := range []core.Contender{connectgo.Contender, connectgo.JSON} {
		for second, want := range map[string]int64{right: 0, wrong: 5} {
			res := driveUser(t, c, target, second)
			if res.Calls+want != 10 || res.Errors[core.KindWrongAnswer] != want {
				t.Errorf("%s: calls %d, errors %v; want %d wrong", c.ID, res.Calls, res.Errors, want)
			}
		}
	}
}

func driveUser(t *testing.T, c core.Contender, target, second string) core.Result {
	t.Helper()
	calls, samples := int64(10), 100 // and the defaults core.ReadSpec fills in
	spec := &core.Spec{Contract: 1, Contender: c.ID, Target: target, Method: "predictions.Predictions/GetPredictions",
		Mode: core.ModeUnary, SchemaB64: "set", Calls: &calls, SampleLimit: &samples, Clients: 1, TimeoutMs: 5000,
		IntervalS: 1, Arrival: core.ArrivalConstant,
		Requests:  []json.RawMessage{[]byte(`{"id_client": "a"}`), []byte(`{"id_client": "b"}`)},
		Responses: []json.RawMessage{[]byte(`{"predictions": [{"class_name": "x", "value": 0.5}]}`), []byte(second)}}
	client, err := c.NewClient(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := drive.Run(spec, client, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
