package limits

import (
	"testing"
	"time"
)

func TestIdleTimeoutIsTheContractsUnlessLowered(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"": 60 * time.Second, "0.5": 500 * time.Millisecond, "2": 2 * time.Second,
		"0": 60 * time.Second, "-1": 60 * time.Second, "NaN": 60 * time.Second, "x": 60 * time.Second,
		"600": 60 * time.Second,
	} {
		t.Setenv(IdleEnv, value)
		if got := IdleTimeout(); got != want {
			t.Errorf("%s=%q: IdleTimeout() = %v, want %v", IdleEnv, value, got, want)
		}
	}
}
