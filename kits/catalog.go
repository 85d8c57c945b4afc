package kits

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
)

// CatalogMarkdown renders every check of the seven kits as Markdown tables (id, level, clauses,
// required methods, SPI version, what it does), for docs generation.
func CatalogMarkdown() string {
	var b strings.Builder
	b.WriteString("# Conformance kit checks\n\nGenerated from package kits (`kits.CatalogMarkdown`). Semantics: docs/spi.md.\n")
	write := func(name, seam string, rows [][6]string) {
		fmt.Fprintf(&b, "\n## %s (%s)\n\n| check | level | clauses | requires | since | what it checks |\n| --- | --- | --- | --- | --- | --- |\n", name, seam)
		for _, r := range rows {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r[0], r[1], r[2], r[3], r[4], r[5])
		}
	}
	write("EventStore", manifest.SeamEventStore, rowsOf(EventStoreKit()))
	write("SnapshotStore", manifest.SeamSnapshotStore, rowsOf(SnapshotStoreKit()))
	write("ArchiveStore", manifest.SeamArchiveStore, rowsOf(ArchiveStoreKit()))
	write("BranchRegistry", manifest.SeamBranchRegistry, rowsOf(BranchRegistryKit()))
	write("ContentStore", manifest.SeamContentStore, rowsOf(ContentStoreKit()))
	write("DurableStateStore", manifest.SeamDurableStateStore, rowsOf(DurableStateStoreKit()))
	write("ReadModelStore", manifest.SeamReadModelStore, rowsOf(ReadModelStoreKit()))
	write("ExecutionDispatcher", manifest.SeamExecutionDispatcher, rowsOf(ExecutionDispatcherKit()))
	return b.String()
}

func rowsOf[T any](k Kit[T]) [][6]string {
	out := make([][6]string, len(k.Checks))
	for i := range k.Checks {
		ch := &k.Checks[i]
		req := "—"
		if len(ch.Requires) > 0 {
			req = strings.Join(ch.Requires, ", ")
		}
		out[i] = [6]string{ch.ID, string(ch.Level), strings.Join(ch.Clauses, " "), req, since(k, ch).String(), ch.Doc}
	}
	return out
}
