// Package testenv is how a test says it needs something outside the Go toolchain (Node.js, curl,
// PostgreSQL, a Docker engine): with CI=true a missing need fails the test, since CI must run
// every test (DESIGN, "CI"); elsewhere the test is skipped with a message that says how to enable
// it.
//
//	node, err := exec.LookPath("node")
//	if err != nil {
//		testenv.Missing(t, "node is not on PATH: install Node.js to run the JavaScript oracle")
//	}
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// CI reports whether the tests run in CI (CI=true), where nothing may be skipped.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing ends the test because something it needs is not there: a failure under CI=true, a skip
// with the message elsewhere. msg says what is missing and how to get it.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if CI() {
		t.Fatalf("CI=true, and a test must run there: %s", msg)
		return
	}
	t.Skip(msg)
}

// LookPath finds a program the test needs, or ends the test as Missing, naming how to install it.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not on PATH: "+install)
	}
	return p
}
