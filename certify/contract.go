package certify

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/vectors"
)

// A versioned contract (DESIGN §7.1, I-CERT-52). What the checks demand of an implementation is
// versioned per kind beside the spec's own versions — stores (every store, bridge and dispatcher
// check certify runs), kernel (the kernel kit) and vectors (the fold vectors) — in a conformance
// profile version the certificate names. Any change of what a check demands that could fail an
// implementation certified before bumps its kind's version, with an entry in
// docs/contract-changelog.md: TestContractVersioned holds the table of every check (id, level,
// clauses, what it demands) and every vector to the table recorded with the version in
// certify/contract, and fails, naming what changed, when they differ under the same version.

// Profile kinds: what a conformance profile version covers.
const (
	ProfileStores  = "stores"
	ProfileKernel  = "kernel"
	ProfileVectors = "vectors"
)

// ProfileKinds lists the profile kinds in a fixed order.
func ProfileKinds() []string { return []string{ProfileStores, ProfileKernel, ProfileVectors} }

// Profile is one kind's pinned conformance profile: its version and the digest of its table.
type Profile struct {
	Version string `json:"version"`
	Digest  string `json:"digest"`
}

//go:embed contract/profiles.json
var profilesJSON []byte

// Profiles returns the pinned conformance profiles, by kind.
func Profiles() map[string]Profile {
	var f struct {
		Profiles map[string]Profile `json:"profiles"`
	}
	if err := json.Unmarshal(profilesJSON, &f); err != nil {
		panic("certify/contract/profiles.json: " + err.Error()) // built into the binary; its test reads it
	}
	return f.Profiles
}

// ProfileVersion is kind's pinned profile version ("" when there is none).
func ProfileVersion(kind string) string { return Profiles()[kind].Version }

// ContractRow is one line of a profile's table: a check (or vector) and what it demands.
type ContractRow struct {
	ID, Level, Clauses, Demand string
}

// ContractTable is kind's table as the harness now defines it, in a fixed order.
func ContractTable(kind string) ([]ContractRow, error) {
	switch kind {
	case ProfileKernel:
		return kitRows(kernelkit.Kit()), nil
	case ProfileStores:
		var out []ContractRow
		for _, rows := range [][]ContractRow{kitRows(bridgekit.Kit()), kitRows(kits.EventStoreKit()), kitRows(kits.SnapshotStoreKit()), kitRows(kits.ArchiveStoreKit()),
			kitRows(kits.BranchRegistryKit()), kitRows(kits.ContentStoreKit()), kitRows(kits.DurableStateStoreKit()), kitRows(kits.ReadModelStoreKit()),
			kitRows(kits.ExecutionDispatcherKit()), kitRows(FaultKit())} {
			out = append(out, rows...)
		}
		return out, nil
	case ProfileVectors:
		c, err := vectors.Embedded()
		if err != nil {
			return nil, err
		}
		var out []ContractRow
		for _, v := range c.Vectors {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			sum := sha256.Sum256(b)
			out = append(out, ContractRow{ID: v.ID, Level: string(v.Kind), Clauses: strings.Join(v.Clauses, " "),
				Demand: "sha256:" + hex.EncodeToString(sum[:8]) + " " + v.Reason})
		}
		return out, nil
	}
	return nil, fmt.Errorf("no conformance profile %q (have %s)", kind, strings.Join(ProfileKinds(), ", "))
}

func kitRows[T any](k kits.Kit[T]) []ContractRow {
	out := make([]ContractRow, len(k.Checks))
	for i, ch := range k.Checks {
		out[i] = ContractRow{ID: ch.ID, Level: string(ch.Level), Clauses: strings.Join(ch.Clauses, " "), Demand: ch.Doc}
	}
	return out
}

// TableText is a table as its recorded file holds it: one row a line, tab-separated (tabs and
// newlines inside a field written as spaces).
func TableText(rows []ContractRow) string {
	var b strings.Builder
	flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", flat.Replace(r.ID), flat.Replace(r.Level), flat.Replace(r.Clauses), flat.Replace(r.Demand))
	}
	return b.String()
}

// TableDigest is the digest a profile pins: sha256 of the table's text.
func TableDigest(rows []ContractRow) string {
	sum := sha256.Sum256([]byte(TableText(rows)))
	return "sha256:" + hex.EncodeToString(sum[:])
}
