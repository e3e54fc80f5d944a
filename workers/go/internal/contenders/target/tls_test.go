package target

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

// pemPair is a self-signed certificate for 127.0.0.1 and localhost, written as
// PEM files (a self-signed certificate is its own CA).
type pemPair struct{ cert, key string }

func mint(t *testing.T, name string) pemPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := pemPair{filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")}
	write(t, p.cert, "CERTIFICATE", der)
	write(t, p.key, "EC PRIVATE KEY", keyDER)
	return p
}

func write(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p pemPair) tls(t *testing.T) tls.Certificate {
	pair, err := tls.LoadX509KeyPair(p.cert, p.key)
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

// serverTLS presents server's certificate and, given a client CA, requires a client certificate signed by it.
func serverTLS(t *testing.T, server pemPair, clientCA string) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{server.tls(t)}}
	if clientCA != "" {
		data, _ := os.ReadFile(clientCA)
		cfg.ClientCAs = x509.NewCertPool()
		cfg.ClientCAs.AppendCertsFromPEM(data)
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg
}

func TestHTTPSWithACAInsecureAndAClientCertificate(t *testing.T) {
	server, client := mint(t, "server"), mint(t, "client")
	for _, h2 := range []bool{false, true} {
		https := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"proto": "` + r.Proto + `"}`))
		}))
		https.TLS = serverTLS(t, server, client.cert)
		https.EnableHTTP2 = h2
		https.StartTLS()
		t.Cleanup(https.Close)
		proto := map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[h2]
		spec := baseSpec(https.Listener.Addr().String(),
			[]string{`{"method": "GET", "url": "` + https.URL + `/", "headers": {}, "body": null}`},
			[]string{`[["proto", "` + proto + `"]]`})
		withTLS := func(settings map[string]any) {
			spec.External = external(map[string]any{"kind": "http", "http2": h2, "tls": settings})
		}
		withTLS(map[string]any{"cacert": server.cert, "cert": client.cert, "key": client.key})
		assertClean(t, run(t, spec), calls)
		withTLS(map[string]any{"insecure": true, "cert": client.cert, "key": client.key})
		assertClean(t, run(t, spec), calls)
		withTLS(map[string]any{"cert": client.cert, "key": client.key}) // the system's CAs do not know it
		if res := run(t, spec); res.Calls != 0 || !strings.Contains(fmt.Sprint(res.ErrorExamples), "certificate") {
			t.Errorf("unverified: calls %d, errors %v %v", res.Calls, res.Errors, res.ErrorExamples)
		}
		withTLS(map[string]any{"cacert": server.cert}) // no client certificate: the server refuses
		if res := run(t, spec); res.Calls != 0 {
			t.Errorf("without a client certificate: calls %d", res.Calls)
		}
	}
}

func TestTLSFilesThatDoNotLoadAreRefused(t *testing.T) {
	pair := mint(t, "x")
	for _, settings := range []map[string]any{
		{"cacert": pair.key},
		{"cert": pair.cert, "key": pair.cert},
		{"cacert": filepath.Join(t.TempDir(), "gone.pem")},
	} {
		spec := baseSpec("127.0.0.1:1", []string{`{"method": "GET", "url": "https://127.0.0.1:1/", "headers": {}}`},
			[]string{`[]`})
		spec.External = external(map[string]any{"kind": "http", "tls": settings})
		if _, err := NewClient(spec); err == nil || !strings.Contains(err.Error(), "the TLS files do not load") {
			t.Errorf("%v: %v", settings, err)
		}
	}
}

// gRPC over mTLS: metadata reaches the server with every call; --insecure trusts
// the certificate the server presents (server_pem), under the name in it.
func TestGrpcOverTLSWithMetadata(t *testing.T) {
	server, client := mint(t, "server"), mint(t, "client")
	seen := &metadataSeen{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.Creds(credentials.NewTLS(serverTLS(t, server, client.cert))),
		grpc.UnaryInterceptor(seen.intercept))
	healthpb.RegisterHealthServer(s, health.NewServer())
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	serverPEM, _ := os.ReadFile(server.cert)
	for _, settings := range []map[string]any{
		{"cacert": server.cert, "cert": client.cert, "key": client.key},
		{"insecure": true, "server_pem": string(serverPEM), "server_name": "localhost",
			"cert": client.cert, "key": client.key},
	} {
		seen.reset()
		spec := grpcSpec(lis.Addr().String(), "grpc.health.v1.Health/Check", healthpb.File_grpc_health_v1_health_proto,
			`{}`, `[["status", "SERVING"]]`, map[string]any{"tls": settings,
				"metadata": [][]string{{"x-team", "arena"}, {"authorization", "Bearer t0k"}}})
		assertClean(t, run(t, spec), calls)
		if n := seen.count("x-team", "arena"); n < calls || seen.count("authorization", "Bearer t0k") != n {
			t.Errorf("%v: metadata on %d calls, want every one of %d", settings, n, calls)
		}
	}
	plain := grpcSpec(lis.Addr().String(), "grpc.health.v1.Health/Check", healthpb.File_grpc_health_v1_health_proto,
		`{}`, `[]`, nil)
	if res := run(t, plain); res.Calls != 0 {
		t.Errorf("plaintext to a TLS server: calls %d", res.Calls)
	}
}

type metadataSeen struct {
	mu   sync.Mutex
	seen map[[2]string]int
}

func (m *metadataSeen) intercept(ctx context.Context, req any, _ *grpc.UnaryServerInfo,
	handler grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	m.mu.Lock()
	for k, values := range md {
		for _, v := range values {
			m.seen[[2]string{k, v}]++
		}
	}
	m.mu.Unlock()
	return handler(ctx, req)
}

func (m *metadataSeen) reset() {
	m.mu.Lock()
	m.seen = map[[2]string]int{}
	m.mu.Unlock()
}

func (m *metadataSeen) count(k, v string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[[2]string{k, v}]
}
