// Command schemagen generates a user's schema into the worker, as a grpc-go
// user would: protoc with protoc-gen-go over the descriptor set rpcarena
// compiled (`-set`), each proto package of the user's into a Go package of
// its own under internal/userpb (so equal message names in two packages do not
// clash), and a `go build -overlay` file (`-out`/overlay.json) that adds the
// generated files there and a file of blank imports of them to internal/userpb.
// The well-known google/protobuf files keep their own packages (protoc-gen-go
// knows them). Run from workers/go.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
	return writeOverlay(out, gen, files)
}

// userFile is one .proto of the user's and the Go package it is generated into.
type userFile struct {
	name  string // as the set names it, "sub/common.proto"
	goPkg string // "common": internal/userpb/common
}

// userFiles are the set's files that are not google/protobuf's own, each with
// the Go package of its proto package.
func userFiles(set string) ([]userFile, error) {
	data, err := os.ReadFile(set)
	if err != nil {
		return nil, err
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &fds); err != nil {
		return nil, fmt.Errorf("%s is not a descriptor set: %v", set, err)
	}
	packages := map[string]string{} // proto package -> Go package
	var files []userFile
	for _, f := range fds.GetFile() {
		if strings.HasPrefix(f.GetName(), "google/protobuf/") {
			continue
		}
		if _, ok := packages[f.GetPackage()]; !ok {
			packages[f.GetPackage()] = goPackage(f.GetPackage(), len(packages))
		}
		files = append(files, userFile{f.GetName(), packages[f.GetPackage()]})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no file of the user's", set)
	}
	return files, nil
}

// goPackage is a Go package name for a proto package: its letters and digits,
// numbered so that two packages never share one ("a.b" and "a_b").
func goPackage(protoPackage string, n int) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, protoPackage)
	return fmt.Sprintf("pb%d_%s", n, strings.ToLower(name))
}

func protoc(set, gen, tools string, files []userFile) error {
	plugin, err := filepath.Abs(filepath.Join(tools, "protoc-gen-go"))
	if err != nil {
		return err
	}
	args := []string{"--descriptor_set_in=" + set, "--plugin=protoc-gen-go=" + plugin,
		"--go_out=" + gen, "--go_opt=paths=source_relative"}
	var names []string
	for _, f := range files {
		args = append(args, fmt.Sprintf("--go_opt=M%s=%s/%s;%s", f.name, importPath, f.goPkg, f.goPkg))
		names = append(names, f.name)
	}
	cmd := exec.Command("protoc", append(args, names...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc: %v", err)
	}
	return nil
}

// writeOverlay maps internal/userpb/<package>/<file>.pb.go to each generated
// file, and internal/userpb/schema_imports.go to blank imports of every package.
func writeOverlay(out, gen string, files []userFile) error {
	pkg, err := filepath.Abs(filepath.Join("internal", "userpb"))
	if err != nil {
		return err
	}
	replace, imports := map[string]string{}, map[string]bool{}
	for _, f := range files {
		generated, err := filepath.Abs(filepath.Join(gen, strings.TrimSuffix(f.name, ".proto")+".pb.go"))
		if err != nil {
			return err
		}
		flat := strings.ReplaceAll(strings.TrimSuffix(f.name, ".proto"), "/", "_") + ".pb.go"
		replace[filepath.Join(pkg, f.goPkg, flat)] = generated
		imports[f.goPkg] = true
	}
	importsFile, err := filepath.Abs(filepath.Join(out, "schema_imports.go"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(importsFile, importsSource(imports), 0o644); err != nil {
		return err
	}
	replace[filepath.Join(pkg, "schema_imports.go")] = importsFile
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "overlay.json"), data, 0o644)
}

func importsSource(packages map[string]bool) []byte {
	var names []string
	for name := range packages {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// Code generated by cmd/schemagen. DO NOT EDIT.\n\npackage userpb\n\nimport (\n")
	for _, name := range names {
		fmt.Fprintf(&b, "\t_ %q\n", importPath+"/"+name)
	}
	b.WriteString(")\n")
	return []byte(b.String())
}
