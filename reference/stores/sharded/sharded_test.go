package sharded_test

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"path/filepath"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/sharded"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

func TestShardedMemoryPassesEventStoreKit(t *testing.T) {
	kits.EventStore(t, func(ctx context.Context) (spi.EventStore, func(), error) {
		s, err := sharded.New(memory.NewEventStore(), memory.NewEventStore(), memory.NewEventStore())
		return s, nil, err
	})
}

func TestShardedMixedPassesEventStoreKit(t *testing.T) {
	dir := t.TempDir()
	n := 0
	kits.EventStore(t, func(ctx context.Context) (spi.EventStore, func(), error) {
		n++
		db, err := sqlite.Open(ctx, filepath.Join(dir, "shard"+string(rune('a'+n%26))+string(rune('a'+n/26))+".db"))
		if err != nil {
			return nil, nil, err
		}
		s, err := sharded.New(memory.NewEventStore(), db.Events())
		return s, func() { db.Close() }, err
	})
}

type sealer struct {
	*memory.EventStore
	cap *spi.Sealing
}

func (s sealer) SealingCapability(context.Context) (*spi.Sealing, error) { return s.cap, nil }

type noSealing struct{ spi.EventStore }

func TestSealingOnlyWhenEveryShardAgrees(t *testing.T) {
	ctx := context.Background()
	aes := &spi.Sealing{Cipher: "aes-256-gcm", Covers: []string{"payload", "metadata"}}
	aesReordered := &spi.Sealing{Cipher: "aes-256-gcm", Covers: []string{"metadata", "payload"}}
	other := &spi.Sealing{Cipher: "chacha20-poly1305", Covers: []string{"payload", "metadata"}}
	cases := []struct {
		name   string
		shards []spi.EventStore
		want   string
	}{
		{"all agree", []spi.EventStore{sealer{memory.NewEventStore(), aes}, sealer{memory.NewEventStore(), aesReordered}}, "aes-256-gcm"},
		{"cipher differs", []spi.EventStore{sealer{memory.NewEventStore(), aes}, sealer{memory.NewEventStore(), other}}, ""},
		{"one seals nothing", []spi.EventStore{sealer{memory.NewEventStore(), aes}, memory.NewEventStore()}, ""},
		{"one lacks the method", []spi.EventStore{sealer{memory.NewEventStore(), aes}, noSealing{memory.NewEventStore()}}, ""},
	}
	report := func(shards ...spi.EventStore) (*spi.Sealing, error) {
		s, err := sharded.New(shards...)
		if err != nil {
			return nil, err
		}
		return s.SealingCapability(ctx)
	}
	errs := func(report func(...spi.EventStore) (*spi.Sealing, error)) []string {
		var out []string
		for _, c := range cases {
			got, err := report(c.shards...)
			if err != nil {
				out = append(out, fmt.Sprintf("%s: SealingCapability() error %v", c.name, err))
				continue
			}
			gotCipher := ""
			if got != nil {
				gotCipher = got.Cipher
			}
			if gotCipher != c.want {
				out = append(out, fmt.Sprintf("stores/sharded/sealing-agree [S7.es.sealing-sharded-agree S7.es.sealing-forwarded]: SealingCapability(%s) = %q, want %q", c.name, gotCipher, c.want))
			}
		}
		return out
	}
	for _, e := range errs(report) {
		t.Error(e)
	}
	// A sharded store that reports its first shard's capability, or forwards none, fails the table.
	for id, broken := range map[string]func(...spi.EventStore) (*spi.Sealing, error){
		"store/sharded/first-shard-wins": func(shards ...spi.EventStore) (*spi.Sealing, error) {
			if r, ok := shards[0].(spi.SealingReporter); ok {
				return r.SealingCapability(ctx)
			}
			return nil, nil
		},
		"store/sharded/sealing-not-forwarded": func(...spi.EventStore) (*spi.Sealing, error) { return nil, nil },
	} {
		if e := errs(broken); len(e) == 0 {
			t.Errorf("the sealing table accepts the broken sharded store %s", id)
		} else {
			proof.Rejected(t, id, "stores/sharded/sealing-agree", proof.Failure("stores/sharded/sealing-agree", nil, "SealingCapability("+id+")", e[0]))
		}
	}
}

func TestCapabilitiesFollowTheWeakestShard(t *testing.T) {
	s, _ := sharded.New(memory.NewEventStore(), noSealing{memory.NewEventStore()})
	if spi.Has("EventStore", s, spi.MethodReadRange) {
		t.Error("Has(readRange) = true with a shard lacking it, want false")
	}
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), func(ctx context.Context) (spi.EventStore, func(), error) {
		return s, nil, nil
	}, kits.Options{Run: `^eventstore/(read-range-bounds|append-read-order)$`})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		want := kits.Pass
		if r.CheckID == "eventstore/read-range-bounds" {
			want = kits.Skip
		}
		if r.Verdict != want {
			t.Errorf("%s = %s (%s), want %s", r.CheckID, r.Verdict, r.Message, want)
		}
	}
	if _, err := sharded.New(); err == nil {
		t.Error("New() = nil error, want one (no shards)")
	}
}
