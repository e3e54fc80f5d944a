package cli_test

import (
	"encoding/base64"
	"testing"

	"rpcarena/workers/go/internal/core"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// Each contender's own client against its own server, for a few methods.
func TestDriveEveryContenderEndToEnd(t *testing.T) {
	cases := []struct {
		contender string
		methods   []string
	}{
		{"grpc-go", []string{"Void", "Invert", "Average", "EchoItems", "EchoLargeData8192"}},
		{"rest-go", []string{"Void", "Distance", "EchoInt64", "GetRandNums", "EchoLargeData1024"}},
		{"tcp-raw-go", []string{"Void", "EchoString", "EchoLargeData8192"}},
		{"tagless-go", []string{"Void", "Distance", "EchoInt64", "GetRandNums", "EchoItems", "EchoStrings", "EchoLargeData8192"}},
	}
	for _, c := range cases {
		target := serve(t, c.contender)
		for _, method := range c.methods {
			t.Run(c.contender+"/"+method, func(t *testing.T) {
				res := drive(t, spec(c.contender, target, method, nil))
				assertClean(t, res, 200)
			})
		}
	}
}

func TestDriveStreamMode(t *testing.T) {
	for _, contender := range []string{"grpc-go", "tcp-raw-go"} {
		target := serve(t, contender)
		res := drive(t, spec(contender, target, "InvertStream", map[string]any{"mode": "stream"}))
		assertClean(t, res, 200)
	}
}

func TestDriveOpenLoop(t *testing.T) {
	target := serve(t, "grpc-go")
	for _, arrival := range []string{"constant", "poisson"} {
		res := drive(t, spec("grpc-go", target, "Invert", map[string]any{
			"rate_per_s": 2000, "arrival": arrival, "warmup_s": 0}))
		assertClean(t, res, 200)
		if res.HistogramUncorrected == nil || histogramCount(t, *res.HistogramUncorrected) != 200 {
			t.Errorf("%s: histogram_uncorrected missing or short", arrival)
		}
	}
}

func TestDriveForADuration(t *testing.T) {
	target := serve(t, "tcp-raw-go")
	res := drive(t, spec("tcp-raw-go", target, "Void", map[string]any{"calls": nil, "duration_s": 0.2}))
	if res.Calls == 0 || errorTotal(res) != 0 || histogramCount(t, res.Histogram) != res.Calls {
		t.Errorf("calls %d, errors %v", res.Calls, res.Errors)
	}
}

func assertClean(t *testing.T, res core.Result, calls int64) {
	t.Helper()
	if res.Calls != calls || errorTotal(res) != 0 {
		t.Fatalf("calls %d, errors %v", res.Calls, res.Errors)
	}
	if n := histogramCount(t, res.Histogram); n != calls {
		t.Errorf("histogram holds %d calls", n)
	}
	if res.EndMonoNs <= res.StartMonoNs || res.StartMonoNs <= 0 {
		t.Errorf("monotonic start %d, end %d", res.StartMonoNs, res.EndMonoNs)
	}
	if len(res.Samples) != 50 || res.Tool.Name == "" || res.WallS <= 0 {
		t.Errorf("samples %d, tool %+v, wall %v", len(res.Samples), res.Tool, res.WallS)
	}
}
