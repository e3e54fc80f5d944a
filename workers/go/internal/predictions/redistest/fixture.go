package redistest

import "encoding/json"

// Hashes are three clients of the arena's data set (src/rpcarena/workloads/
// predictions.py), stored as it stores them: Python's repr of each score.
var Hashes = map[string]map[string]string{
	"predictions:client-0000": {"churn": "0.0", "upsell": "0.203125", "cross_sell": "0.40625"},
	"predictions:client-0001": {"upsell": "0.109375", "cross_sell": "0.3125", "fraud": "0.515625", "default": "0.71875"},
	"predictions:client-0002": {"cross_sell": "0.21875", "fraud": "0.421875", "default": "0.625",
		"retention": "0.828125", "premium": "0.03125"},
}

// Requests and Responses pair up the canonical JSON of GetPredictions over
// Hashes, as the orchestrator's spec carries them; the last id is unknown.
var (
	Requests = raw(`{"id_client": "client-0000"}`, `{"id_client": "client-0001"}`,
		`{"id_client": "client-0002"}`, `{"id_client": "nobody"}`)
	Responses = raw(
		`{"predictions": [{"class_name": "churn", "value": 0.0}, {"class_name": "cross_sell", "value": 0.40625}, {"class_name": "upsell", "value": 0.203125}]}`,
		`{"predictions": [{"class_name": "cross_sell", "value": 0.3125}, {"class_name": "default", "value": 0.71875}, {"class_name": "fraud", "value": 0.515625}, {"class_name": "upsell", "value": 0.109375}]}`,
		`{"predictions": [{"class_name": "cross_sell", "value": 0.21875}, {"class_name": "default", "value": 0.625}, {"class_name": "fraud", "value": 0.421875}, {"class_name": "premium", "value": 0.03125}, {"class_name": "retention", "value": 0.828125}]}`,
		`{"predictions": []}`)
)

func raw(docs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		out[i] = json.RawMessage(d)
	}
	return out
}
