// Package vectors loads the shared test vectors (proto/vectors/arena.json) for
// the worker's tests.
package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Vector is one request in, exact response out, in canonical JSON.
type Vector struct {
	Workload *string         `json:"workload"`
	Method   string          `json:"method"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
}

// RelPath is where the vectors live from the repository's root.
const RelPath = "proto/vectors/arena.json"

// Load reads the vectors, finding the repository root above the working directory.
func Load() ([]Vector, error) {
	path, err := FindUp(RelPath)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct{ Vectors []Vector }
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return doc.Vectors, nil
}

// FindUp returns the path of rel in the nearest directory, from the working
// directory up, that holds it: tests run in their package's folder.
func FindUp(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, rel)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s not found above the working directory: run the tests inside the rpcarena repository", rel)
		}
		dir = parent
	}
}
