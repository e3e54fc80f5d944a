// Command worker is rpcarena's Go native worker (docs/worker-contract.md).
package main

import (
	"os"

	"rpcarena/workers/go/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
