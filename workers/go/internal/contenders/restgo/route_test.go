package restgo

import (
	"testing"

	"rpcarena/workers/go/internal/arena"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/protobuf/proto"
)

// The seed's FastAPI answered the hash's raw strings; numbers and strings read alike.
func TestPredictionsReplyIsSortedAndReadsStrings(t *testing.T) {
	m, _ := arena.LookupMethod("GetPredictions")
	got, err := routeOf(m).reply([]byte(`{"upsell": "0.109375", "churn": 0.25, "cross_sell": "0.0"}`))
	want := &predictionspb.PredictionResponse{Predictions: []*predictionspb.Prediction{
		{ClassName: "churn", Value: 0.25}, {ClassName: "cross_sell"}, {ClassName: "upsell", Value: 0.109375}}}
	if err != nil || !proto.Equal(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{`{"churn": "high"}`, `{"churn": true}`, `[]`} {
		if _, err := routeOf(m).reply([]byte(bad)); err == nil {
			t.Errorf("%s read without error", bad)
		}
	}
}
