package certify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
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
	add := func(seam, name, defect, catch string, set func(*bridge.Stores)) {
		kind := ""
		for _, k := range Kinds() {
			if seamOf(k) == seam {
				kind = k
			}
		}
		out = append(out, BrokenStore{Kind: kind, Seam: seam, Name: name, Defect: defect, Catch: catch, set: set})
	}
	for _, s := range broken.EventStores() {
		add(manifest.SeamEventStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.EventStore = s.New() })
	}
	for _, s := range broken.SnapshotStores() {
		add(manifest.SeamSnapshotStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.SnapshotStore = s.New() })
	}
	for _, s := range broken.ArchiveStores() {
		add(manifest.SeamArchiveStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.ArchiveStore = s.New() })
	}
	for _, s := range broken.BranchRegistries() {
		add(manifest.SeamBranchRegistry, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.BranchRegistry = s.New() })
	}
	for _, s := range broken.ContentStores() {
		add(manifest.SeamContentStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.ContentStore = s.New() })
	}
	for _, s := range broken.DurableStateStores() {
		add(manifest.SeamDurableStateStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.DurableStateStore = s.New() })
	}
	for _, s := range broken.ReadModelStores() {
		add(manifest.SeamReadModelStore, s.Name, s.Defect, s.Catch, func(st *bridge.Stores) { st.ReadModelStore = s.New() })
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
