package kits

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/rand"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/jsondiff"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Factory makes a fresh target for one check. cleanup (may be nil) is called when the check is
// done, also after a timeout.
type Factory[T any] func(ctx context.Context) (target T, cleanup func(), err error)

// Check is one conformance check of a kit, as data.
type Check[T any] struct {
	ID      string     // stable id, e.g. "eventstore/append-conflict"
	Clauses []string   // clause ids it enforces (spec/clauses_*.go, spec/interp_store.go)
	Level   spec.Level // MUST, SHOULD, …: how a failure counts
	// Requires lists the optional SPI methods (manifest names) the check exercises; it is skipped,
	// with a message naming them, when the target lacks one.
	Requires []string
	// Since is the SPI version of the seam whose semantics the check enforces ("" = the version
	// the newest required method arrived in). Checks newer than the target version are skipped.
	Since string
	Doc   string // one line: what the check does
	Run   func(ctx context.Context, c *Case[T]) error
}

// Kit is a named list of checks for one seam.
type Kit[T any] struct {
	Name   string // "eventstore", "snapshotstore", "archivestore", "branchregistry"
	Seam   string // manifest seam name
	Checks []Check[T]
}

// Case is what a running check gets: its fresh target and a seeded source of randomness.
type Case[T any] struct {
	Store T
	Seed  int64
	Rand  *rand.Rand
	// Fresh makes a further fresh target (for checks that compare two stores); cleaned up with the
	// case.
	Fresh func(ctx context.Context) (T, error)
	// SpiVersion is the SPI version the target is held to in this run.
	SpiVersion string
	// Explore is how many scripts an exploration check runs (Options.Explore).
	Explore int
	// explore holds Options.Findings and Options.Replay for the exploration checks.
	explore exploreOptions
	check   *Check[T]
	ids     int
	// nonce is drawn from crypto/rand for each case, so the ids of two cases never meet: not two
	// checks of one run, nor two runs against one long-lived target (the time-derived 16 bits it
	// once had repeated every 67 ms, and a kernel served across runs answered a fresh start
	// "exists").
	nonce    uint64
	mu       sync.Mutex
	panicked string
	// done and total are the check's own account of its work (Progress), for the message of a
	// check cut short by its time limit.
	done, total int
	// ahead lists what the check holds that a queue may stall behind: packages of other checks a
	// claim delivered and the check left leased (dispatcher checks).
	ahead []string
}

// Progress records that the check has done done of the total rounds of work it defines. A check
// whose work is several rounds calls it as it goes, so that, cut short by its time limit, its
// verdict says how far it came ("did 12 of 40 rounds"); a check that returns nil after its
// context ended is never a pass (DESIGN §7.1), whether or not it reported progress.
func (c *Case[T]) Progress(done, total int) {
	c.mu.Lock()
	c.done, c.total = done, total
	c.mu.Unlock()
}

// progress says how far the check came: "did 12 of 40 rounds", or "" when it never said.
func (c *Case[T]) progress() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total == 0 {
		return ""
	}
	return fmt.Sprintf("did %d of %d rounds", c.done, c.total)
}

// Recover, deferred first thing in every goroutine a check starts, turns a panic of the target in
// that goroutine into an unknown verdict instead of a crash of the whole run.
func (c *Case[T]) Recover() {
	if p := recover(); p != nil {
		c.mu.Lock()
		if c.panicked == "" {
			c.panicked = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
		c.mu.Unlock()
	}
}

func (c *Case[T]) panicMessage() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.panicked
}

// ExecID returns an execution id unique within the case and, through a random 64-bit nonce per
// case, across cases and runs (a collision is a 2^-64 chance), so checks also work against a
// target that is not empty or that serves several runs at once.
func (c *Case[T]) ExecID(name string) string {
	c.ids++
	return fmt.Sprintf("%s%s-%d", c.idPrefix(), name, c.ids)
}

// idPrefix is what every id of this case begins with: the seed and the case's nonce.
func (c *Case[T]) idPrefix() string {
	return fmt.Sprintf("kit-%x-%016x-", uint32(c.Seed), c.nonce)
}

// newNonce draws a case's nonce.
func newNonce() uint64 {
	var b [8]byte
	_, _ = cryptorand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Violation is one broken rule, printed in the project's failure grammar:
// `<check id> [<clause ids>]: <Op>(<args>) = <got>, want <want>`.
type Violation struct {
	Check   string
	Clauses []string
	Op      string
	Args    string
	Got     string
	Want    string
	Diff    string // the (-want +got) of the values as JSON (internal/jsondiff), when there is one
	Err     error  // the store's error when Got is an error
}

func (v *Violation) Error() string {
	args, context := splitContext(v.Args)
	s := fmt.Sprintf("%s [%s]: %s(%s) = %s, want %s", v.Check, strings.Join(v.Clauses, " "), v.Op, args, v.Got, v.Want)
	if context != "" {
		s += " (" + context + ")"
	}
	if v.Diff != "" {
		s += "\n(-want +got):\n" + v.Diff
	}
	return s
}

// Unwrap exposes the store's error.
func (v *Violation) Unwrap() error { return v.Err }

// Failf reports that op(args) gave got where want was expected, as a violation of every clause
// the check enforces. A check whose comparisons enforce different clauses names each comparison's
// own with Cite, so a failure binds as its clauses do (a tier per assertion, DESIGN §7.1).
func (c *Case[T]) Failf(op, args string, got, want any) error {
	return c.Cite(c.check.Clauses...).Failf(op, args, got, want)
}

// Diff reports a value mismatch with a JSON diff, as a violation of every clause the check
// enforces; nil when want and got are equal. Cite(…).Diff names the comparison's own clauses.
func (c *Case[T]) Diff(op, args string, want, got any, opts ...cmp.Option) error {
	return c.Cite(c.check.Clauses...).Diff(op, args, want, got, opts...)
}

// Cite names the clauses one comparison of the check enforces: the Failf and Diff of the returned
// Assertion report a violation of exactly those clauses, and a failure binds as they do — required
// when any of them is required, recommended when each is a choice. A choice's check is typically
// two comparisons: one citing the spec clause for "one of the legal options" (required), one citing
// the choice for "ours" (recommended). Every clause cited must be one of the check's Clauses, so
// coverage stays true: a comparison citing another ends the check unknown as a harness bug.
func (c *Case[T]) Cite(clauses ...string) Assertion[T] {
	return Assertion[T]{c: c, clauses: clauses}
}

// Assertion is one comparison of a check and the clauses it enforces (Case.Cite).
type Assertion[T any] struct {
	c       *Case[T]
	clauses []string
}

// Failf reports that op(args) gave got where want was expected, citing the assertion's clauses.
func (a Assertion[T]) Failf(op, args string, got, want any) error {
	v := &Violation{Check: a.c.check.ID, Clauses: a.clauses, Op: op, Args: args, Got: show(got), Want: describe(want)}
	if e, ok := got.(error); ok {
		v.Err = e
	}
	return v
}

// Diff reports a value mismatch, citing the assertion's clauses; nil when want and got are equal
// as cmp.Equal with opts says. The diff shows both as the JSON they carry (internal/jsondiff).
func (a Assertion[T]) Diff(op, args string, want, got any, opts ...cmp.Option) error {
	if cmp.Equal(want, got, opts...) {
		return nil
	}
	// Shown as the JSON the bridge or the wire carried, never as Go values (internal/jsondiff).
	d := jsondiff.Diff(want, got)
	if d == "" {
		d = "the values carry the same JSON, but differ as " + summarize(want) + " and " + summarize(got) + "\n  " + jsondiff.Compact(want, 400) + "\n"
	}
	g, w := summarize(got), summarize(want)
	if g == w {
		g += " with other content"
	}
	return &Violation{Check: a.c.check.ID, Clauses: a.clauses, Op: op, Args: args, Got: g, Want: w, Diff: d}
}

// skipError makes a check end as skip.
type skipError struct{ reason string }

func (s *skipError) Error() string { return "skip: " + s.reason }

// unknownError makes a check end as unknown: the kit could not reach a judgement (a checker that
// ran out of time), which is neither a pass nor a skip.
type unknownError struct{ reason string }

func (u *unknownError) Error() string { return "unknown: " + u.reason }

// Unknown ends the check with verdict unknown.
func (c *Case[T]) Unknown(format string, args ...any) error {
	return &unknownError{reason: fmt.Sprintf(format, args...)}
}

// Skip ends the check as skipped.
func (c *Case[T]) Skip(format string, args ...any) error {
	return &skipError{reason: fmt.Sprintf(format, args...)}
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case error:
		return fmt.Sprintf("error %q", x.Error())
	case string:
		return jsondiff.Compact(x, 0)
	case []byte:
		return fmt.Sprintf("%s", x)
	default:
		return jsondiff.Compact(x, 300) // as JSON, never as a Go value
	}
}

// describe is show for the wanted side: a string there describes what was wanted ("nil", "> 3"),
// so it is printed as is.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return show(v)
}

// Names lists the check ids of a kit in order.
func (k Kit[T]) Names() []string {
	out := make([]string, len(k.Checks))
	for i, ch := range k.Checks {
		out[i] = ch.ID
	}
	return out
}

// SpecChecks projects the kit's checks as spec.Check values (Kind kit, Where the kit name).
func (k Kit[T]) SpecChecks() []spec.Check {
	out := make([]spec.Check, len(k.Checks))
	for i, ch := range k.Checks {
		out[i] = spec.Check{ID: ch.ID, Kind: spec.KindKit, Clauses: append([]string(nil), ch.Clauses...), Where: k.Name}
	}
	return out
}

// splitContext separates the call's arguments from a trailing context some checks write as
// `args) context (more`, so the message keeps the grammar Op(args) = got, want want (context).
// Any other text (a target's value may hold ") " and " (" anywhere) comes back whole.
func splitContext(args string) (string, string) {
	i := strings.Index(args, ") ")
	j := strings.LastIndex(args, " (")
	if i < 0 || j < i+2 {
		return args, ""
	}
	ctx := strings.TrimSpace(args[i+2:j] + " " + args[j+2:])
	return args[:i], ctx
}

// summarize describes a value in one short phrase for the failure line (the diff has the detail).
func summarize(v any) string {
	switch x := v.(type) {
	case []spi.Envelope:
		if len(x) == 0 {
			return "no envelopes"
		}
		return fmt.Sprintf("%d envelopes (seq %d..%d)", len(x), x[0].Sequence, x[len(x)-1].Sequence)
	case spi.Snapshot:
		return fmt.Sprintf("snapshot at %d (sealed %v)", x.Sequence, x.Sealed)
	case spi.Branch:
		return fmt.Sprintf("branch %q of %q at %d", x.ID, x.ParentID, x.ForkSequence)
	case []spi.Branch:
		return fmt.Sprintf("%d branches", len(x))
	case spi.StateEntry:
		return fmt.Sprintf("version %d, value %s", x.Version, jsondiff.Compact(x.Value, 60))
	case []spi.ReadModelDoc:
		ids := make([]string, len(x))
		for i, d := range x {
			ids[i] = d.ID
		}
		return fmt.Sprintf("%d documents %s", len(x), jsondiff.Compact(ids, 60))
	}
	return jsondiff.Compact(v, 80)
}
