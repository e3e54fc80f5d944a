package grpcgo_test

import (
	"context"
	"testing"

	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/predictions/redistest"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

const getPredictions = "/predictions.Predictions/GetPredictions"

// Scores are multiples of 1/64, exact in float32: replies compare exactly. The
// last id is unknown and answers an empty list.
func TestGetPredictionsReadsRedisSorted(t *testing.T) {
	cc := startServer(t, core.ServerOptions{Redis: redistest.Start(t, redistest.Hashes)})
	for i := range redistest.Requests {
		req := decode(t, redistest.Requests[i], &predictionspb.PredictionRequest{})
		want := decode(t, redistest.Responses[i], &predictionspb.PredictionResponse{})
		got := &predictionspb.PredictionResponse{}
		if err := cc.Invoke(context.Background(), getPredictions, req, got); err != nil {
			t.Fatalf("%s: %v", redistest.Requests[i], err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("%s: got %v", redistest.Requests[i], got)
		}
	}
}

func TestGetPredictionsIsUnimplementedWithoutRedis(t *testing.T) {
	cc := startServer(t, core.ServerOptions{})
	err := cc.Invoke(context.Background(), getPredictions, &predictionspb.PredictionRequest{IdClient: "client-0001"},
		&predictionspb.PredictionResponse{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("got %v, want UNIMPLEMENTED", err)
	}
}
