package restgo_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/contenders/restgo"
	"rpcarena/workers/go/internal/predictions"
	"rpcarena/workers/go/internal/predictions/redistest"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(data))
}

// The hash comes back as a JSON object of numbers; an unknown id as {}.
func TestGetPredictionsAnswersTheHashAsAnObject(t *testing.T) {
	store, err := predictions.Open(redistest.Start(t, redistest.Hashes))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(restgo.NewHandler(store))
	defer srv.Close()
	cases := map[string]string{
		"client-0001": `{"cross_sell":0.3125,"default":0.71875,"fraud":0.515625,"upsell":0.109375}`,
		"client-0000": `{"churn":0,"cross_sell":0.40625,"upsell":0.203125}`,
		"nobody":      `{}`,
	}
	for id, want := range cases {
		if code, body := get(t, srv.URL+"/predictions/"+id); code != http.StatusOK || body != want {
			t.Errorf("%s: status %d, body %s", id, code, body)
		}
	}
}

func TestGetPredictionsIsNotFoundWithoutRedis(t *testing.T) {
	srv := httptest.NewServer(restgo.NewHandler(nil))
	defer srv.Close()
	if code, _ := get(t, srv.URL+"/predictions/client-0001"); code != http.StatusNotFound {
		t.Errorf("status %d, want 404", code)
	}
}
