// Package registry lists the contenders of the Go worker: adding one is one line
// here plus its own package.
package registry

import (
	"fmt"

	"rpcarena/workers/go/internal/contenders/connectgo"
	"rpcarena/workers/go/internal/contenders/grpcgo"
	"rpcarena/workers/go/internal/contenders/protoframes"
	"rpcarena/workers/go/internal/contenders/restgo"
	"rpcarena/workers/go/internal/contenders/resth3"
	"rpcarena/workers/go/internal/contenders/tagless"
	"rpcarena/workers/go/internal/contenders/target"
	"rpcarena/workers/go/internal/contenders/tcpraw"
	"rpcarena/workers/go/internal/core"
)

// All contenders, in the order of worker.json.
var All = []core.Contender{
	grpcgo.Contender,
	restgo.Contender,
	tcpraw.Contender,
	tagless.Contender,
	protoframes.Contender,
	target.Contender,
	restgo.NewConnection,
	connectgo.Contender,
	connectgo.JSON,
	resth3.Contender,
}

// Lookup finds a contender by id.
func Lookup(id string) (core.Contender, error) {
	for _, c := range All {
		if c.ID == id {
			return c, nil
		}
	}
	return core.Contender{}, fmt.Errorf("unknown contender %q: the Go worker has %s", id, ids())
}

func ids() string {
	s := ""
	for i, c := range All {
		if i > 0 {
			s += ", "
		}
		s += c.ID
	}
	return s
}
