package main

import (
	"strings"
	"testing"
)

// The help a newcomer reads first names every seam and every certify kind as they are today.
func TestHelpNamesEverySeam(t *testing.T) {
	_, root, _ := runCLI(t, "", "--help")
	for _, want := range []string{"seven storage seams", "content, durable-state and read-model", "ExecutionDispatcher", "certify kernel", "report matrix", "docs/glossary.md"} {
		if !strings.Contains(root, want) {
			t.Errorf("loom-conform --help lacks %q", want)
		}
	}
	_, certifyHelp, _ := runCLI(t, "", "certify", "--help")
	if strings.Contains(certifyHelp, "four stores") || !strings.Contains(certifyHelp, "contentstore, durablestatestore, readmodelstore") {
		t.Errorf("certify --help does not say that all is every served seam of the seven:\n%s", certifyHelp)
	}
}
