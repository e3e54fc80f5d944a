package cli_test

import "testing"

// connect-go, connect-go-json and rest-h3-go, each its own client against its
// own server through `serve` and `drive`: every reply verified, on the arena's
// small and large messages.
func TestDriveConnectAndHTTP3EndToEnd(t *testing.T) {
	methods := []string{"Void", "Distance", "EchoInt64", "GetRandNums", "EchoItems", "EchoLargeData1024", "ChecksumLargeData8192"}
	for _, contender := range []string{"connect-go", "connect-go-json", "rest-h3-go"} {
		target := serve(t, contender)
		for _, method := range methods {
			t.Run(contender+"/"+method, func(t *testing.T) {
				assertClean(t, drive(t, spec(contender, target, method, nil)), 200)
			})
		}
	}
}

// Eight clients sharing one QUIC connection: every call verified, many in flight at once.
func TestHTTP3ClientsShareOneConnection(t *testing.T) {
	target := serve(t, "rest-h3-go")
	res := drive(t, spec("rest-h3-go", target, "EchoString", map[string]any{"clients": 8, "connections": 1}))
	assertClean(t, res, 200)
	if res.Connections == nil || *res.Connections != 1 || res.InflightMax == nil || *res.InflightMax < 2 {
		t.Errorf("connections %v, in flight at most %v", res.Connections, res.InflightMax)
	}
}
