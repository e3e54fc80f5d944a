package main

import (
	"go/token"
	"strings"
	"testing"
)

// Each proto package gets a Go package of its own with a valid name, and two
// proto packages never share one, even when their letters agree.
func TestGoPackagesAreValidAndDistinct(t *testing.T) {
	seen := map[string]string{}
	for n, protoPackage := range []string{"orders", "a.b", "a_b", "", "Shop.V1"} {
		name := goPackage(protoPackage, n)
		if !token.IsIdentifier(name) || name != strings.ToLower(name) {
			t.Errorf("%q -> %q: not a lower-case Go identifier", protoPackage, name)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("%q and %q share the Go package %q", protoPackage, other, name)
		}
		seen[name] = protoPackage
	}
}

func TestTheImportsFileLinksEveryPackage(t *testing.T) {
	src := string(importsSource(map[string]bool{"pb1_b": true, "pb0_a": true}))
	want := "import (\n\t_ \"" + importPath + "/pb0_a\"\n\t_ \"" + importPath + "/pb1_b\"\n)\n"
	if !strings.HasPrefix(src, "// Code generated") || !strings.Contains(src, "package userpb") || !strings.HasSuffix(src, want) {
		t.Fatalf("imports file:\n%s", src)
	}
}
