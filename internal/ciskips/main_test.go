package main

import (
	"strings"
	"testing"
)

func TestUnexpectedSkips(t *testing.T) {
	doc := `<?xml version="1.0"?><testsuites><testsuite name="p" tests="3">
<testcase classname="p" name="TestKit/eventstore/store-now"><skipped message="=== RUN   TestKit/eventstore/store-now&#xA;    testing.go:36: target does not implement storeNow"></skipped></testcase>
<testcase classname="p" name="TestKit/eventstore/delete-through"><skipped message="testing.go:36: needs EventStore SPI 2.6.0, target held to 2.0.0"></skipped></testcase>
<testcase classname="q" name="TestNode"><skipped message="=== RUN   TestNode&#xA;    oracle_test.go:25: node is not on PATH"></skipped></testcase>
<testcase classname="q" name="TestOK"></testcase>
</testsuite></testsuites>`
	bad, n, err := Unexpected(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || len(bad) != 1 || !strings.Contains(bad[0], "q TestNode: oracle_test.go:25: node is not on PATH") {
		t.Fatalf("Unexpected = %q (%d skipped), want only TestNode, with its reason", bad, n)
	}
}
