// Command loom-conform encodes the Loom kernel specification as executable checks. See README.md
// and `loom-conform --help`.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
