package registry_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/registry"
	"rpcarena/workers/go/internal/vectors"
)

// entry is a contender of worker.json, as rpcarena.native reads it.
type entry struct {
	ID          string   `json:"id"`
	Protocol    string   `json:"protocol"`
	Server      bool     `json:"server"`
	Client      bool     `json:"client"`
	Unsupported []string `json:"unsupported_methods"`
}

func manifest(t *testing.T) []entry {
	t.Helper()
	path, err := vectors.FindUp("worker.json") // this module's own, workers/go/worker.json
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Contenders []entry }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc.Contenders
}

// worker.json is what the orchestrator lists and starts; registry.All is what
// the worker serves and drives. Both name the same contenders, both ways, with
// the same protocol and roles, in the same order.
func TestManifestMatchesRegistry(t *testing.T) {
	entries := manifest(t)
	listed, order := map[string]entry{}, []string{}
	for _, e := range entries {
		listed[e.ID], order = e, append(order, e.ID)
	}
	for _, c := range registry.All {
		e, ok := listed[c.ID]
		if !ok {
			t.Errorf("%s is registered but not in worker.json: add its entry there", c.ID)
		} else if got := entryOf(c); got.Protocol != e.Protocol || got.Server != e.Server || got.Client != e.Client {
			t.Errorf("%s: registered protocol %q server %v client %v; worker.json says %q %v %v",
				c.ID, got.Protocol, got.Server, got.Client, e.Protocol, e.Server, e.Client)
		}
	}
	for id := range listed {
		if _, err := registry.Lookup(id); err != nil {
			t.Errorf("worker.json lists %s: add its package's Contender to registry.All (internal/registry/registry.go)", id)
		}
	}
	if registered := registeredIDs(); !slices.Equal(registered, order) {
		t.Errorf("registry.All is %q, worker.json %q: keep one order", registered, order)
	}
}

// A method the manifest excuses must be an rpc of proto/, or the orchestrator
// would run the cell it meant to skip.
func TestUnsupportedMethodsAreRpcs(t *testing.T) {
	for _, e := range manifest(t) {
		for _, name := range e.Unsupported {
			if _, err := arena.LookupMethod(name); err != nil {
				t.Errorf("worker.json %s: %v", e.ID, err)
			}
		}
	}
}

func entryOf(c core.Contender) entry {
	return entry{ID: c.ID, Protocol: c.Protocol, Server: c.NewServer != nil, Client: c.NewClient != nil}
}

func registeredIDs() []string {
	var out []string
	for _, c := range registry.All {
		out = append(out, c.ID)
	}
	return out
}
