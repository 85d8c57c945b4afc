package certify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// BrokenStore is one of the deliberately broken stores of kits/broken, servable behind the bridge
// (certify --builtin broken:NAME, serve-store --broken NAME): the reference memory stores with
// one seam replaced by a store with one defect, which the check Catch must reject. They are how
// certify proves it rejects a defective store over the wire, and how a bridge author sees what a
// failure of each kind looks like.
type BrokenStore struct {
	// Kind is the certify kind of the seam it breaks ("eventstore"); Seam its manifest name.
	Kind, Seam, Name, Defect, Catch string
	set                             func(*bridge.Stores)
}

// ID is the name qualified by the kind ("durablestatestore/lossy-numbers"): a few names are used
// by more than one seam.
func (b BrokenStore) ID() string { return b.Kind + "/" + b.Name }

// BrokenStores lists the broken stores by seam, in the kits' order.
func BrokenStores() []BrokenStore {
	var out []BrokenStore
	out = brokenOf(out, manifest.SeamEventStore, broken.EventStores(), func(st *bridge.Stores, s spi.EventStore) { st.EventStore = s })
	out = brokenOf(out, manifest.SeamSnapshotStore, broken.SnapshotStores(), func(st *bridge.Stores, s spi.SnapshotStore) { st.SnapshotStore = s })
	out = brokenOf(out, manifest.SeamArchiveStore, broken.ArchiveStores(), func(st *bridge.Stores, s spi.ArchiveStore) { st.ArchiveStore = s })
	out = brokenOf(out, manifest.SeamBranchRegistry, broken.BranchRegistries(), func(st *bridge.Stores, s spi.BranchRegistry) { st.BranchRegistry = s })
	out = brokenOf(out, manifest.SeamContentStore, broken.ContentStores(), func(st *bridge.Stores, s spi.ContentStore) { st.ContentStore = s })
	out = brokenOf(out, manifest.SeamDurableStateStore, broken.DurableStateStores(), func(st *bridge.Stores, s spi.DurableStateStore) { st.DurableStateStore = s })
	out = brokenOf(out, manifest.SeamReadModelStore, broken.ReadModelStores(), func(st *bridge.Stores, s spi.ReadModelStore) { st.ReadModelStore = s })
	return out
}

// brokenOf appends the broken stores of one seam, each setting its store into a bridge's stores.
func brokenOf[T any](out []BrokenStore, seam string, stores []broken.Store[T], set func(*bridge.Stores, T)) []BrokenStore {
	kind := ""
	for _, k := range Kinds() {
		if seamOf(k) == seam {
			kind = k
		}
	}
	for _, s := range stores {
		out = append(out, BrokenStore{Kind: kind, Seam: seam, Name: s.Name, Defect: s.Defect, Catch: s.Catch,
			set: func(st *bridge.Stores) { set(st, s.New()) }})
	}
	return out
}

// LookupBrokenStore returns the broken store called name: its ID ("eventstore/lossy-numbers"), or
// its bare name when only one seam uses it.
func LookupBrokenStore(name string) (BrokenStore, error) {
	var found []BrokenStore
	for _, b := range BrokenStores() {
		if b.ID() == name {
			return b, nil
		}
		if b.Name == name {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return BrokenStore{}, fmt.Errorf("no broken store %q; the broken stores are (KIND/NAME, or NAME where only one seam has it):\n%s", name, BrokenStoreList(100))
	case 1:
		return found[0], nil
	}
	var ids []string
	for _, b := range found {
		ids = append(ids, b.ID())
	}
	return BrokenStore{}, fmt.Errorf("broken store %q is a name of %d seams: say %s", name, len(found), strings.Join(ids, ", "))
}

// BrokenStoreList is the broken stores' names by seam, one seam a paragraph wrapped to width,
// for help texts and the error of an unknown name.
func BrokenStoreList(width int) string {
	bySeam := map[string][]BrokenStore{}
	var seams []string
	uses := map[string]int{}
	for _, b := range BrokenStores() {
		uses[b.Name]++
	}
	for _, b := range BrokenStores() {
		if _, ok := bySeam[b.Seam]; !ok {
			seams = append(seams, b.Seam)
		}
		bySeam[b.Seam] = append(bySeam[b.Seam], b)
	}
	var out strings.Builder
	for _, seam := range seams {
		bs := bySeam[seam]
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
		line := "  " + seam + ":"
		for _, b := range bs {
			n := b.Name
			if uses[n] > 1 {
				n = b.ID()
			}
			if len(line)+1+len(n)+1 > width {
				out.WriteString(line + "\n")
				line = "    "
			} else {
				line += " "
			}
			line += n + ","
		}
		out.WriteString(strings.TrimSuffix(line, ",") + "\n")
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// brokenBackend serves memory stores with one seam replaced by the broken store called name
// ("broken:<name>").
func brokenBackend(spec string) (bridge.Stores, string, error) {
	name := strings.TrimPrefix(spec, "broken:")
	b, err := LookupBrokenStore(name)
	if err != nil {
		return bridge.Stores{}, "", err
	}
	st := bridge.Stores{Implementation: bridge.Implementation{Name: "broken " + name, Version: "test"},
		EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
		ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry()}
	if b.Seam == manifest.SeamContentStore || b.Seam == manifest.SeamDurableStateStore || b.Seam == manifest.SeamReadModelStore {
		st.ContentStore, st.DurableStateStore, st.ReadModelStore = memory.NewContentStore(), memory.NewDurableStateStore(), memory.NewReadModelStore()
	}
	b.set(&st)
	return st, b.Catch, nil
}
