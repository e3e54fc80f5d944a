package predictions

import (
	"context"
	"maps"
	"slices"

	pb "rpcarena/workers/go/predictionspb"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Service implements predictions.Predictions over a Store.
type Service struct {
	pb.UnimplementedPredictionsServer
	Store *Store
}

// GetPredictions answers the client's hash sorted by class_name. A Redis that
// fails is INTERNAL: UNAVAILABLE would read as the RPC's own transport failing.
func (s Service) GetPredictions(ctx context.Context, r *pb.PredictionRequest) (*pb.PredictionResponse, error) {
	scores, err := s.Store.Scores(ctx, r.GetIdClient())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "redis: %v", err)
	}
	return Response(scores), nil
}

// Response is the canonical reply of a hash: its entries sorted by class_name.
func Response(scores map[string]float32) *pb.PredictionResponse {
	reply := &pb.PredictionResponse{Predictions: make([]*pb.Prediction, 0, len(scores))}
	for _, name := range slices.Sorted(maps.Keys(scores)) {
		reply.Predictions = append(reply.Predictions, &pb.Prediction{ClassName: name, Value: scores[name]})
	}
	return reply
}
