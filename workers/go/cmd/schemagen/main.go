// Command schemagen generates a user's schema into the worker, as a grpc-go
// user would: protoc-gen-go over the descriptor set rpcarena compiled (`-set`),
// each proto package of the user's into a Go package of its own under
// internal/userpb (so equal message names in two packages do not clash), and a
// `go build -overlay` file (`-out`/overlay.json) that adds the generated files
// there and a file of blank imports of them to internal/userpb. The well-known
// google/protobuf files keep their own packages (protoc-gen-go knows them).
// Run from workers/go.
//
// The plugin is run as protoc runs it (a CodeGeneratorRequest on its stdin),
// without protoc: the set is already compiled, and the system's protoc (Debian's
// 3.21) cannot even read a file of protobuf editions, which protoc-gen-go
// generates; the plugin itself refuses an edition it does not know.
package main

import (
	"bytes"
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
	"google.golang.org/protobuf/types/pluginpb"
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
	fds, err := readSet(set)
	if err != nil {
		return err
	}
	files, err := userFiles(fds, set)
	if err != nil {
		return err
	}
	gen := filepath.Join(out, "gen")
	if err := generate(fds, gen, tools, files); err != nil {
		return err
	}
	return writeOverlay(out, gen, files)
}

func readSet(set string) (*descriptorpb.FileDescriptorSet, error) {
	data, err := os.ReadFile(set)
	if err != nil {
		return nil, err
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &fds); err != nil {
		return nil, fmt.Errorf("%s is not a descriptor set: %v", set, err)
	}
	return &fds, nil
}

// userFile is one .proto of the user's and the Go package it is generated into.
type userFile struct {
	name  string // as the set names it, "sub/common.proto"
	goPkg string // "common": internal/userpb/common
}

// userFiles are the set's files that are not google/protobuf's own, each with
// the Go package of its proto package.
func userFiles(fds *descriptorpb.FileDescriptorSet, set string) ([]userFile, error) {
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

// generate runs protoc-gen-go over the user's files of the set, as protoc
// would with --go_out=gen --go_opt=paths=source_relative and an M option per
// file, and writes the files of its response under gen.
func generate(fds *descriptorpb.FileDescriptorSet, gen, tools string, files []userFile) error {
	plugin, err := filepath.Abs(filepath.Join(tools, "protoc-gen-go"))
	if err != nil {
		return err
	}
	params := []string{"paths=source_relative"}
	var names []string
	for _, f := range files {
		params = append(params, fmt.Sprintf("M%s=%s/%s;%s", f.name, importPath, f.goPkg, f.goPkg))
		names = append(names, f.name)
	}
	request, err := proto.Marshal(&pluginpb.CodeGeneratorRequest{
		FileToGenerate: names, Parameter: proto.String(strings.Join(params, ",")), ProtoFile: fds.GetFile()})
	if err != nil {
		return err
	}
	cmd := exec.Command(plugin)
	cmd.Stdin, cmd.Stderr = bytes.NewReader(request), os.Stderr
	reply, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("protoc-gen-go: %v", err)
	}
	var response pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(reply, &response); err != nil {
		return fmt.Errorf("protoc-gen-go answered no CodeGeneratorResponse: %v", err)
	}
	if response.Error != nil {
		return fmt.Errorf("protoc-gen-go: %s", response.GetError())
	}
	return writeGenerated(gen, response.GetFile())
}

// writeGenerated writes each file the plugin generated under gen, refusing a
// name that would leave it.
func writeGenerated(gen string, generated []*pluginpb.CodeGeneratorResponse_File) error {
	for _, f := range generated {
		name := filepath.Clean(filepath.FromSlash(f.GetName()))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("protoc-gen-go named a file outside its output: %q", f.GetName())
		}
		path := filepath.Join(gen, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
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
