package certify_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The Go route to a certificate: the values are served by a bridge in this process and certified
// as `loom-conform certify` certifies any target, so WriteCertificate, WriteJSON, WriteJUnit,
// WriteHTML and WriteBadge give what the command line gives.
func ExampleRunStore() {
	stores := bridge.Stores{
		Implementation: bridge.Implementation{Name: "acme-store", Version: "1.4.0"},
		EventStore:     memory.NewEventStore(), // your spi.EventStore
	}
	rep, err := certify.RunStore(context.Background(), stores, certify.Config{Kinds: []string{"eventstore"}, Seed: 1})
	if err != nil {
		fmt.Println(err) // bad configuration only; a store that fails is a report
		return
	}
	var cert strings.Builder
	_ = certify.WriteCertificate(&cert, rep) // and WriteJSON, WriteJUnit, WriteHTML, WriteBadge
	fmt.Println(strings.SplitN(cert.String(), "\n", 2)[0])
	fmt.Println("exit code:", rep.Verdict.ExitCode())
	// Output:
	// loom store certificate — CERTIFIED: EventStore SPI 2.6.0 without storeNow
	// exit code: 0
}
