// Command schemagen generates a user's schema into the worker, as a grpc-go
// user would: protoc with protoc-gen-go over the descriptor set rpcarena
// compiled (`-set`), every user file mapped into package internal/userpb, and a
// `go build -overlay` file (`-out`/overlay.json) that adds the generated files
// to that package. The well-known google/protobuf files keep their own
// packages (protoc-gen-go knows them). Run from workers/go.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

const importPath = "rpcarena/workers/go/internal/userpb"

func main() {
	set := flag.String("set", "", "the descriptor set (FileDescriptorSet, imports included)")
	out := flag.String("out", "", "the variant's folder: generated code and overlay.json go there")
	tools := flag.String("tools", "bin/tools", "where gen.sh installed protoc-gen-go")
	flag.Parse()
	if err := run(*set, *out, *tools); err != nil {
		fmt.Fprintf(os.Stderr, "schemagen: %v\n", err)
		os.Exit(1)
	}
}

func run(set, out, tools string) error {
	if set == "" || out == "" {
		return errors.New("give -set SET.pb -out FOLDER")
	}
	files, err := userFiles(set)
	if err != nil {
		return err
	}
	gen := filepath.Join(out, "gen")
	if err := os.MkdirAll(gen, 0o755); err != nil {
		return err
	}
	if err := protoc(set, gen, tools, files); err != nil {
		return err
	}
	return writeOverlay(filepath.Join(out, "overlay.json"), gen, files)
}

// userFiles are the set's files that are not google/protobuf's own.
func userFiles(set string) ([]string, error) {
	data, err := os.ReadFile(set)
	if err != nil {
		return nil, err
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &fds); err != nil {
		return nil, fmt.Errorf("%s is not a descriptor set: %v", set, err)
	}
	var files []string
	for _, f := range fds.GetFile() {
		if !strings.HasPrefix(f.GetName(), "google/protobuf/") {
			files = append(files, f.GetName())
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no file of the user's", set)
	}
	return files, nil
}

func protoc(set, gen, tools string, files []string) error {
	plugin, err := filepath.Abs(filepath.Join(tools, "protoc-gen-go"))
	if err != nil {
		return err
	}
	args := []string{"--descriptor_set_in=" + set, "--plugin=protoc-gen-go=" + plugin,
		"--go_out=" + gen, "--go_opt=paths=source_relative"}
	for _, f := range files {
		args = append(args, fmt.Sprintf("--go_opt=M%s=%s;userpb", f, importPath))
	}
	cmd := exec.Command("protoc", append(args, files...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc: %v", err)
	}
	return nil
}

// writeOverlay maps internal/userpb/<file>.pb.go (flattened: a package is one
// folder) to each generated file.
func writeOverlay(path, gen string, files []string) error {
	pkg, err := filepath.Abs(filepath.Join("internal", "userpb"))
	if err != nil {
		return err
	}
	replace := map[string]string{}
	for _, f := range files {
		generated, err := filepath.Abs(filepath.Join(gen, strings.TrimSuffix(f, ".proto")+".pb.go"))
		if err != nil {
			return err
		}
		name := strings.ReplaceAll(strings.TrimSuffix(f, ".proto"), "/", "_") + ".pb.go"
		replace[filepath.Join(pkg, "schema_"+name)] = generated
	}
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
