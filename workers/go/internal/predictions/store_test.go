package predictions_test

import (
	"context"
	"testing"

	"rpcarena/workers/go/internal/predictions"
	"rpcarena/workers/go/internal/predictions/redistest"
)

func TestScoresParseTheHashAndRefuseText(t *testing.T) {
	url := redistest.Start(t, map[string]map[string]string{
		"predictions:a": {"churn": "0.25", "fraud": "0.0"},
		"predictions:b": {"churn": "high"},
	})
	store, err := predictions.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	if got, err := store.Scores(ctx, "a"); err != nil || len(got) != 2 || got["churn"] != 0.25 || got["fraud"] != 0 {
		t.Errorf("a: %v, %v", got, err)
	}
	if got, err := store.Scores(ctx, "unknown"); err != nil || len(got) != 0 {
		t.Errorf("unknown: %v, %v", got, err)
	}
	if _, err := store.Scores(ctx, "b"); err == nil {
		t.Error("a score of text was read")
	}
}

func TestOpenChecksTheURL(t *testing.T) {
	if store, err := predictions.Open(""); store != nil || err != nil {
		t.Errorf("no URL: %v, %v", store, err)
	}
	for _, url := range []string{"http://127.0.0.1:1/0", "redis://127.0.0.1:1/0"} {
		if _, err := predictions.Open(url); err == nil {
			t.Errorf("%s opened", url)
		}
	}
}

func TestResponseSortsByClassName(t *testing.T) {
	got := predictions.Response(map[string]float32{"upsell": 0.5, "churn": 0.25, "fraud": 0})
	if len(got.Predictions) != 3 || got.Predictions[0].ClassName != "churn" ||
		got.Predictions[1].ClassName != "fraud" || got.Predictions[2].GetValue() != 0.5 {
		t.Errorf("got %v", got)
	}
}
