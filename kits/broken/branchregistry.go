package broken

import (
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func classBranchRegistries() []classStore[spi.BranchRegistry] {
	type B = spi.BranchRegistry
	return []classStore[B]{
		class("branches-fold-case", "branches are keyed by the lower-cased id", "branchregistry/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() B { return branchesFoldCase{newBR()} }),
		class("children-collated", "listChildren orders children case-insensitively (a before B)", "branchregistry/list-children-byte-order", []string{"I-STORE-28"},
			func() B { return childrenCollated{newBR(), collate} }),
		class("children-by-path", "branches are kept as paths, so listChildren(p) also lists the children of p.q", "branchregistry/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27", "I-STORE-20"},
			func() B { return newChildrenScanned(underPath(".")) }),
		class("children-utf16-order", "listChildren orders children by UTF-16 code units: characters beyond U+FFFF before U+E000–U+FFFF", "branchregistry/list-children-byte-order", []string{"I-STORE-28"},
			func() B { return childrenCollated{newBR(), utf16Less} }),
		class("fork-sequence-smallint", "forkSequence is kept in a SMALLINT column, so a fork past sequence 32767 is refused (breaks only a recommendation)", "branchregistry/register-unknown-parent", []string{"I-STORE-54"},
			func() B { return forkSequenceSmallint{newBR()} }),
		class("branch-bytes-compare", "re-registration compares metadata bytes, so a respelled retry is already-exists", "branchregistry/register-respelled", []string{"I-STORE-72", "I-STORE-29"},
			func() B { return branchBytesCompare{newBR()} }),
		class("branch-float-compare", "re-registration compares metadata through float64, so a value a double cannot tell apart is taken for a retry", "branchregistry/register-respelled", []string{"I-STORE-29"},
			func() B { return branchFloatCompare{newBR()} }),
	}
}

// ClassBranchRegistries are the broken BranchRegistries of the rule classes that apply across seams and methods.
func ClassBranchRegistries() []Store[spi.BranchRegistry] { return stores(classBranchRegistries()) }

type br struct{ *memory.BranchRegistry }

func newBR() br { return br{memory.NewBranchRegistry()} }

// BranchRegistries lists the broken BranchRegistries.
func BranchRegistries() []Store[spi.BranchRegistry] {
	return []Store[spi.BranchRegistry]{
		{"children-and-grandchildren", "listChildren includes grandchildren", "branchregistry/list-children", func() spi.BranchRegistry { return childrenAndGrandchildren{newBR()} }},
		{"register-overwrites", "a different branch under a registered id overwrites it", "branchregistry/register-different-refused", func() spi.BranchRegistry {
			return registerOverwrites{newBR(), &sync.Mutex{}, map[string]spi.Branch{}}
		}},
		{"cycles-allowed", "a branch closing a cycle is accepted", "branchregistry/no-cycles", func() spi.BranchRegistry {
			return cyclesAllowed{newBR(), &sync.Mutex{}, map[string]spi.Branch{}}
		}},
		{"register-race", "check-then-write registration: racing registrations both win", "branchregistry/concurrent-register", func() spi.BranchRegistry {
			return registerRace{newBR(), &sync.Mutex{}, map[string]spi.Branch{}, paceHeld}
		}},
		{"zero-for-unknown", "get of an unknown id returns an empty branch, not not-found", "branchregistry/register-get", func() spi.BranchRegistry { return zeroForUnknown{newBR()} }},
		{"children-like-prefix", "listChildren matches parent ids by prefix, so children of parents extending the id are listed", "branchregistry/list-children", func() spi.BranchRegistry {
			return newChildrenScanned(likePrefix)
		}},
		{"lossy-branch-metadata", "branch metadata numbers pass through float64", "branchregistry/roundtrip-precision", func() spi.BranchRegistry { return lossyBranch{newBR()} }},
		{"register-equal-exists", "registering an equal branch again is already-exists (breaks only a recommendation)", "branchregistry/register-idempotent", func() spi.BranchRegistry { return registerEqualExists{newBR()} }},
	}
}
