package restgo

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"rpcarena/workers/go/internal/predictions"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/protobuf/proto"
)

// The predictions seed's REST twin, kept as published rather than in the
// contract's POST /arena/{Method} mapping: GET /predictions/{id_client}
// answers the Redis hash as a JSON object, class_name -> score.

// predictionsHandler serves GET /predictions/{id_client}, scores as JSON numbers
// (encoding/json writes a float32 in its shortest form, and sorts the keys).
type predictionsHandler struct{ store *predictions.Store }

func (h predictionsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	scores, err := h.store.Scores(r.Context(), r.PathValue("id_client"))
	if err != nil {
		http.Error(w, "redis: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(scores)
}

// predictionsRoute is the client's side: GET, then the object turned into the
// canonical reply, sorted by class_name.
type predictionsRoute struct{}

func (predictionsRoute) request(ctx context.Context, base string, m proto.Message) (*http.Request, error) {
	id := m.(*predictionspb.PredictionRequest).GetIdClient()
	return http.NewRequestWithContext(ctx, http.MethodGet, base+"/predictions/"+url.PathEscape(id), nil)
}

func (predictionsRoute) reply(body []byte) (proto.Message, error) {
	var object map[string]score
	if err := json.Unmarshal(body, &object); err != nil {
		return nil, err
	}
	scores := make(map[string]float32, len(object))
	for name, s := range object {
		scores[name] = float32(s)
	}
	return predictions.Response(scores), nil
}

// score reads a JSON number, or a string holding one: the seed's FastAPI
// answered the hash's raw strings.
type score float32

func (s *score) UnmarshalJSON(data []byte) error {
	text := string(data)
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
	}
	value, err := strconv.ParseFloat(text, 32)
	*s = score(value)
	return err
}
