package manifest

// SPI version constants (spec §7). Versions the spec does not state are interpretations
// (docs/interpretations.md, I-MANIFEST-3).
const (
	EventStoreSpiVersion          = "2.6.0"
	SnapshotStoreSpiVersion       = "1.3.0"
	ArchiveStoreSpiVersion        = "1.1.0"
	BranchRegistrySpiVersion      = "1.0.0"
	ExecutionDispatcherSpiVersion = "1.0.0"
	ContentStoreSpiVersion        = "1.5.0"
	DurableStateStoreSpiVersion   = "1.0.0"
	ReadModelStoreSpiVersion      = "1.0.0"
)

// Seam names, as used by `compat --spi NAME=V` and the store bridge handshake.
const (
	SeamEventStore          = "EventStore"
	SeamSnapshotStore       = "SnapshotStore"
	SeamArchiveStore        = "ArchiveStore"
	SeamBranchRegistry      = "BranchRegistry"
	SeamExecutionDispatcher = "ExecutionDispatcher"
	SeamContentStore        = "ContentStore"
	SeamDurableStateStore   = "DurableStateStore"
	SeamReadModelStore      = "ReadModelStore"
)

// SpiMethod is one method of an SPI.
type SpiMethod struct {
	Name     string `json:"name"`
	Optional bool   `json:"optional"`
	Since    string `json:"since"` // the SPI version the method arrived in
}

// Spi is one seam with its version and method table.
type Spi struct {
	Name    string      `json:"name"`
	Version string      `json:"version"`
	Tier    string      `json:"tier"` // "kernel" or "plugin"
	Methods []SpiMethod `json:"methods"`
}

func req(name string) SpiMethod        { return SpiMethod{Name: name, Since: "1.0.0"} }
func opt(name, since string) SpiMethod { return SpiMethod{Name: name, Optional: true, Since: since} }

// Spis returns every SPI with its method table.
func Spis() []Spi {
	return []Spi{
		{Name: SeamEventStore, Version: EventStoreSpiVersion, Tier: "kernel", Methods: []SpiMethod{
			req("append"), req("read"),
			opt("readRange", "1.0.0"), opt("acquireFence", "1.0.0"), opt("copyPrefix", "1.0.0"),
			opt("deleteExecution", "1.0.0"), opt("listExecutionsPage", "1.2.0"),
			opt("acquireFenceIf", "2.1.0"), opt("appendIfUnchanged", "2.2.0"), opt("storeNow", "2.4.0"),
			opt("sealingCapability", "2.5.0"), opt("deleteThrough", "2.6.0"),
		}},
		{Name: SeamSnapshotStore, Version: SnapshotStoreSpiVersion, Tier: "kernel", Methods: []SpiMethod{
			req("save"), req("loadLatest"),
			opt("deleteExecution", "1.0.0"), opt("loadLatestSealed", "1.1.0"),
			opt("pruneSnapshots", "1.2.0"), opt("listSequences", "1.3.0"),
		}},
		{Name: SeamArchiveStore, Version: ArchiveStoreSpiVersion, Tier: "kernel", Methods: []SpiMethod{
			req("append"), req("read"),
			opt("deleteExecution", "1.1.0"), opt("replaceSegments", "1.1.0"),
		}},
		{Name: SeamBranchRegistry, Version: BranchRegistrySpiVersion, Tier: "kernel", Methods: []SpiMethod{
			req("register"), req("get"), req("listChildren"),
		}},
		{Name: SeamExecutionDispatcher, Version: ExecutionDispatcherSpiVersion, Tier: "kernel", Methods: []SpiMethod{
			req("dispatch"), req("targets"),
			opt("claim", "1.0.0"), opt("heartbeat", "1.0.0"), opt("ack", "1.0.0"),
		}},
		{Name: SeamContentStore, Version: ContentStoreSpiVersion, Tier: "plugin", Methods: []SpiMethod{
			req("put"), req("get"), req("putStream"),
			opt("owner", "1.5.0"), opt("sealsContent", "1.5.0"),
		}},
		{Name: SeamDurableStateStore, Version: DurableStateStoreSpiVersion, Tier: "plugin", Methods: []SpiMethod{
			req("get"), req("set"), req("delete"),
		}},
		{Name: SeamReadModelStore, Version: ReadModelStoreSpiVersion, Tier: "plugin", Methods: []SpiMethod{
			req("upsert"), req("query"),
		}},
	}
}

// LookupSpi returns the seam named name (case-insensitive).
func LookupSpi(name string) (Spi, bool) {
	for _, s := range Spis() {
		if equalFold(s.Name, name) {
			return s, true
		}
	}
	return Spi{}, false
}

// MethodsAt returns the methods of s available at SPI version v (required ones always; optional
// ones whose Since is not after v).
func (s Spi) MethodsAt(v string) ([]SpiMethod, error) {
	target, err := ParseVersion(v)
	if err != nil {
		return nil, err
	}
	var out []SpiMethod
	for _, m := range s.Methods {
		since, _ := ParseVersion(m.Since)
		if !m.Optional || !target.Less(since) {
			out = append(out, m)
		}
	}
	return out, nil
}
