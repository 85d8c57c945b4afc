package certify

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// brokenBackend serves memory stores with one seam replaced by the kits/broken store called name
// ("broken:<name>"): the way the certify tests prove that a defective store behind a bridge is
// rejected by the check meant for it. Not listed by Backends.
func brokenBackend(spec string) (bridge.Stores, string, error) {
	name := strings.TrimPrefix(spec, "broken:")
	st := bridge.Stores{Implementation: bridge.Implementation{Name: "broken " + name, Version: "test"},
		EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
		ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry()}
	for _, s := range broken.EventStores() {
		if s.Name == name {
			st.EventStore = s.New()
			return st, s.Catch, nil
		}
	}
	for _, s := range broken.SnapshotStores() {
		if s.Name == name {
			st.SnapshotStore = s.New()
			return st, s.Catch, nil
		}
	}
	for _, s := range broken.ArchiveStores() {
		if s.Name == name {
			st.ArchiveStore = s.New()
			return st, s.Catch, nil
		}
	}
	for _, s := range broken.BranchRegistries() {
		if s.Name == name {
			st.BranchRegistry = s.New()
			return st, s.Catch, nil
		}
	}
	return bridge.Stores{}, "", fmt.Errorf("unknown broken store %q (see kits/broken)", name)
}
