package sharded_test

import (
	"context"
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
	for _, c := range cases {
		s, err := sharded.New(c.shards...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.SealingCapability(ctx)
		if err != nil {
			t.Fatalf("%s: SealingCapability() error %v", c.name, err)
		}
		gotCipher := ""
		if got != nil {
			gotCipher = got.Cipher
		}
		if gotCipher != c.want {
			t.Errorf("sharded/sealing [S7.es.sealing-sharded-agree]: SealingCapability(%s) = %q, want %q", c.name, gotCipher, c.want)
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
