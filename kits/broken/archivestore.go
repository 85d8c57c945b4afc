package broken

import (
	"context"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func classArchiveStores() []classStore[spi.ArchiveStore] {
	type A = spi.ArchiveStore
	return []classStore[A]{
		class("archive-delete-folds-case", "deleteExecution matches ids case-insensitively", "archivestore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() A { return archiveDeleteFoldsCase{newAS(), &sync.Mutex{}, map[string]bool{}} }),
		class("archive-delimited-prefix-scan", "archived envelopes are keyed <id>|<sequence> and read scans the key prefix <id>|, so x reads the archive of x|q", "archivestore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() A { return prefixScanArchive{newAS(), "|", &sync.Mutex{}, map[string]bool{}} }),
		class("archive-bytes-compare", "re-archived envelopes are compared byte for byte, so a respelled retry is a conflict", "archivestore/reappend-respelled", []string{"I-STORE-70", "I-STORE-29"},
			func() A { return archiveBytesCompare{newAS()} }),
		class("archive-float-compare", "re-archived envelopes are compared through float64, so a value a double cannot tell apart is taken for a retry", "archivestore/reappend-respelled", []string{"I-STORE-29"},
			func() A { return newArchiveFloatCompare() }),
		class("archive-metadata-matches-any", "a re-archived envelope without metadata matches the archived one whatever its metadata, so a retry that lost its metadata is taken as equal", "archivestore/reappend-different-values", []string{"I-STORE-18"},
			func() A { return newArchiveMetadataMatchesAny() }),
		class("archive-partial-before-conflict", "an archive call is written envelope by envelope and stops at the first conflict, keeping the new ones before it", "archivestore/conflict-after-valid", []string{"I-STORE-18", "I-STORE-30"},
			func() A { return archivePartialBeforeConflict{newAS()} }),
		class("archive-append-visible-midway", "an archive call is checked whole, then inserted one envelope per statement; readers see part of it", "archivestore/readers-whole-append", []string{"I-STORE-18", "I-STORE-31"},
			func() A { return archiveAppendVisibleMidway{newWatchedAS(), &sync.Mutex{}} }),
		class("replace-visible-midway", "replaceSegments deletes the range, then inserts the new envelopes, without a transaction", "archivestore/readers-whole-replace", []string{"I-STORE-19", "I-STORE-31"},
			func() A { return replaceVisibleMidway{newWatchedAS()} }),
		class("replace-validates-lazily", "replaceSegments drops the range and inserts envelope by envelope, refusing an out-of-range one only when it comes to it", "archivestore/replace-invalid-after-valid", []string{"I-STORE-19", "I-STORE-30"},
			func() A { return replaceValidatesLazily{newAS()} }),
		class("replace-reencodes", "replaceSegments re-encodes the new envelopes through another JSON library: empty arrays become objects, numbers are printed with 14 digits", "archivestore/roundtrip-values", []string{"I-STORE-19"},
			func() A { return replaceReencodes{newAS()} }),
		class("archive-batch-unordered", "an archive call is written envelope by envelope as given, so a repeated sequence keeps the last envelope (breaks only a recommendation)", "archivestore/append-order", []string{"I-STORE-53"},
			func() A { return archiveBatchUnordered{newAS()} }),
		class("replace-keeps-metadata", "replaceSegments keeps the old metadata when the new envelope has none", "archivestore/replace-whole-envelopes", []string{"I-STORE-19", "I-STORE-32"},
			func() A { return replaceKeepsMetadata{newAS()} }),
	}
}

// ClassArchiveStores are the broken ArchiveStores of the rule classes that apply across seams and methods.
func ClassArchiveStores() []Store[spi.ArchiveStore] { return stores(classArchiveStores()) }

// archived returns what is archived of id by sequence.
func archived(ctx context.Context, s as, id string) (map[int64]spi.Envelope, error) {
	got, err := s.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	m := map[int64]spi.Envelope{}
	for _, e := range got {
		m[e.Sequence] = e
	}
	return m, nil
}

type as struct{ *memory.ArchiveStore }

func newAS() as { return as{memory.NewArchiveStore()} }

// ArchiveStores lists the broken ArchiveStores.
func ArchiveStores() []Store[spi.ArchiveStore] {
	return []Store[spi.ArchiveStore]{
		{"archive-drops-metadata", "archived envelopes lose their metadata", "archivestore/keeps-removed-exactly", func() spi.ArchiveStore { return archiveDropsMetadata{newAS()} }},
		{"archive-duplicates", "a retried compaction archives envelopes twice", "archivestore/reappend-keeps-once", func() spi.ArchiveStore {
			return archiveDuplicates{newAS(), &sync.Mutex{}, map[string][]spi.Envelope{}}
		}},
		{"archive-swallows-conflict", "a different envelope at an archived sequence is ignored and the rest stored", "archivestore/reappend-different-conflict", func() spi.ArchiveStore { return archiveSwallowsConflict{newAS()} }},
		{"archive-race", "compare-then-insert without a lock: racing archivers both win", "archivestore/concurrent-archivers", func() spi.ArchiveStore {
			return archiveRace{newAS(), &sync.Mutex{}, map[string]map[int64]spi.Envelope{}, paceHeld}
		}},
		{"replace-too-much", "replaceSegments also drops the envelope after the range", "archivestore/replace-segments", func() spi.ArchiveStore { return replaceTooMuch{newAS()} }},
		{"empty-replace-noop", "replaceSegments with no envelopes changes nothing", "archivestore/replace-segments", func() spi.ArchiveStore { return emptyReplaceNoop{newAS()} }},
		{"prefix-scan-archive", "read scans the bare id as a key prefix, so ids extending it leak in", "archivestore/isolation", func() spi.ArchiveStore {
			return prefixScanArchive{newAS(), "", &sync.Mutex{}, map[string]bool{}}
		}},
		{"lossy-archive", "archived numbers pass through float64", "archivestore/roundtrip-precision", func() spi.ArchiveStore { return lossyArchive{newAS()} }},
		{"archive-equal-conflict", "re-archiving an equal envelope is a conflict (breaks only a recommendation)", "archivestore/reappend-idempotent", func() spi.ArchiveStore { return newArchiveEqualConflict() }},
	}
}
