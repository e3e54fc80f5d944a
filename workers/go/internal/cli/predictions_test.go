package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/cli"
	"rpcarena/workers/go/internal/predictions/redistest"
)

// The predictions seed end to end: servers given --redis read a real Redis,
// clients check every reply (sorted, float32 scores, an unknown id's empty one).
func TestDrivePredictionsOverRedis(t *testing.T) {
	url := redistest.Start(t, redistest.Hashes)
	for _, contender := range []string{"grpc-go", "rest-go"} {
		t.Run(contender, func(t *testing.T) {
			target := serve(t, contender, "--redis", url)
			assertClean(t, drive(t, spec(contender, target, "GetPredictions", nil)), 200)
		})
	}
}

func TestDrivePredictionsWithoutRedisIsRefused(t *testing.T) {
	want := map[string]string{"grpc-go": "status_unimplemented", "rest-go": "status_404"}
	for contender, kind := range want {
		target := serve(t, contender)
		assertAllFailed(t, drive(t, spec(contender, target, "GetPredictions", nil)), kind)
	}
}

func TestServeRefusesARedisThatDoesNotAnswer(t *testing.T) {
	var stderr bytes.Buffer
	args := []string{"serve", "--contender", "grpc-go", "--port", "0", "--redis", "redis://" + freeTarget(t) + "/0"}
	if code := cli.Main(args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "does not answer") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestDrivePredictionsCountsWrongScores(t *testing.T) {
	url := redistest.Start(t, redistest.Hashes)
	wrong := map[string]any{"requests": redistest.Requests[1:2], "responses": redistest.Responses[0:1]}
	for _, contender := range []string{"grpc-go", "rest-go"} {
		target := serve(t, contender, "--redis", url)
		assertAllFailed(t, drive(t, spec(contender, target, "GetPredictions", wrong)), "wrong_answer")
	}
}
