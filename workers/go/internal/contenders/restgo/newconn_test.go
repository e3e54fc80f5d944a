package restgo_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"rpcarena/workers/go/internal/contenders/restgo"
	"rpcarena/workers/go/internal/core"
)

// connectionsFor makes three calls through one connection of the contender's
// client and counts the TCP connections the server accepted.
func connectionsFor(t *testing.T, c core.Contender) int64 {
	t.Helper()
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(restgo.NewHandler(nil))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	spec := &core.Spec{Contract: 1, Contender: c.ID, Target: strings.TrimPrefix(srv.URL, "http://"),
		Method: "SayHello", Mode: core.ModeUnary,
		Requests: []json.RawMessage{json.RawMessage(`{"name":"arena"}`)}, Responses: []json.RawMessage{json.RawMessage(`{"message":"Hello arena"}`)}}
	client, err := c.NewClient(spec)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := client.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for range 3 {
		reply, err := conn.Call(context.Background(), 0)
		if err != nil || !client.Matches(0, reply) {
			t.Fatalf("%s: reply %v, error %v", c.ID, reply, err)
		}
	}
	return opened.Load()
}

// go-newconn opens a connection per call, as a client without keep-alive does
// (cs6650's REST); rest-go's own client keeps one.
func TestNewConnectionClientOpensOnePerCall(t *testing.T) {
	if got := connectionsFor(t, restgo.NewConnection); got != 3 {
		t.Errorf("go-newconn opened %d connections for 3 calls, want 3", got)
	}
	if got := connectionsFor(t, restgo.Contender); got != 1 {
		t.Errorf("rest-go's client opened %d connections for 3 calls, want 1", got)
	}
}
