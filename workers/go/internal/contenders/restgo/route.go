package restgo

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/proto"
)

// route is how one method travels over HTTP: how a request goes out, and how a
// 200 body becomes the canonical reply message.
type route interface {
	request(ctx context.Context, base string, m proto.Message) (*http.Request, error)
	reply(body []byte) (proto.Message, error)
}

// routeOf picks the contract's mapping, or the predictions seed's own.
func routeOf(method arena.Method) route {
	if method.Service == "predictions.Predictions" {
		return predictionsRoute{}
	}
	return arenaRoute{method}
}

// arenaRoute is the contract's POST /arena/{Method}, canonical JSON both ways.
type arenaRoute struct{ method arena.Method }

func (r arenaRoute) request(ctx context.Context, base string, m proto.Message) (*http.Request, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return postJSON(ctx, base+"/arena/"+r.method.Name, body)
}

// postJSON is the POST of a JSON body that both mappings (the contract's and a user's) send.
func postJSON(ctx context.Context, url string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

func (r arenaRoute) reply(body []byte) (proto.Message, error) {
	reply := r.method.NewResponse()
	return reply, decode(body, reply)
}
