// Package redistest runs a throwaway redis-server for the worker's tests.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const readyTimeout = 10 * time.Second

// Start runs redis-server on a free loopback port without persistence, seeds
// the hashes (key -> field -> value) and stops it when the test ends. It skips
// the test when redis-server is absent, unless on CI (CI=true), where it fails.
func Start(t testing.TB, hashes map[string]map[string]string) string {
	t.Helper()
	binary, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server not found: scripts/install-system.sh installs it")
		}
		t.Skip("redis-server not found (apt-get install redis-server)")
	}
	port := freePort(t)
	cmd := exec.Command(binary, "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	seed(t, url, hashes)
	return url
}

func freePort(t testing.TB) int {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().(*net.TCPAddr).Port
}

// seed waits until the server answers, then writes the hashes.
func seed(t testing.TB, url string, hashes map[string]map[string]string) {
	t.Helper()
	opts, _ := redis.ParseURL(url)
	client := redis.NewClient(opts)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for client.Ping(ctx).Err() != nil {
		if ctx.Err() != nil {
			t.Fatalf("redis-server at %s did not answer within %v", url, readyTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for key, fields := range hashes {
		if err := client.HSet(ctx, key, fields).Err(); err != nil {
			t.Fatal(err)
		}
	}
}
