package cliverb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/loom-kernel/loom-conform/internal/gcpace"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/spf13/cobra"
)

func NewFoldCmd() *cobra.Command {
	var profile, snapshot, snapshotProfile string
	cmd := &cobra.Command{
		Use:   "fold [--profile V] [--snapshot FILE] [LOG|-]",
		Short: "Fold an event log (JSON array or NDJSON of envelopes) and print the canonical state",
		Long: `fold reads one execution's envelopes (a JSON array or NDJSON; '-' or no argument is stdin),
folds them with the reference fold as event schema --profile (default the current schema), onto
--snapshot (a state in the JSON form fold prints) if given, and prints the canonical JSON state.
--snapshot-profile names the schema version that wrote the snapshot; it is read through
NormalizeSnapshotFor(writer, --profile) (spec §4: pre-1.21 status, pre-1.26 settled inputs, each
applied only when the writer predates the change and --profile has it).

Bad input (malformed JSON, a wrong field type, a missing, non-integer, out-of-order or non-dense
sequence, envelopes of several executions) exits 2 with a message naming the envelope index and field.
` + fmt.Sprintf(`
Unless GOGC is set, the collector does not run until the heap first reaches %d MiB (or GOMEMLIMIT,
if lower): a log of tens of megabytes folds without a collection cycle. After that it runs at
GOGC=%d until the live heap passes %d MiB, which spends less CPU on the cycles of a small heap;
then at the default pace.`, foldGCHold>>20, foldGCPercent, foldGCLimit>>20),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := fold.Current()
			if profile != "" {
				var err error
				if p, err = fold.ProfileFor(profile); err != nil {
					return BadInput("--profile: %v", err)
				}
			}
			var snap *fold.State
			if snapshot != "" {
				b, err := os.ReadFile(snapshot)
				if err != nil {
					return BadInput("--snapshot: %v", err)
				}
				s, err := fold.ParseState(b)
				if err != nil {
					return BadInput("%s: %v", snapshot, err)
				}
				if snapshotProfile != "" {
					w, err := fold.ProfileFor(snapshotProfile)
					if err != nil {
						return BadInput("--snapshot-profile: %v", err)
					}
					s = fold.NormalizeSnapshotFor(s, w, p)
				}
				snap = &s
			} else if snapshotProfile != "" {
				return BadInput("--snapshot-profile needs --snapshot")
			}
			defer gcpace.HoldThenRelax(foldGCHold, foldGCPercent, foldGCLimit)()
			name, in := "stdin", io.Reader(cmd.InOrStdin())
			var opt fold.DecodeOptions
			var whole []byte // a regular file no longer than foldWholeBytes, mapped whole
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return BadInput("%v", err)
				}
				defer f.Close()
				name, in = args[0], f
				if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
					opt.SizeHint = fi.Size()
					if fi.Size() <= foldWholeBytes {
						var release func()
						if whole, release, err = mapLog(f, fi.Size()); err != nil {
							return BadInput("%s: %v", name, err)
						}
						defer release()
					}
				}
			}
			var st fold.State
			var err error
			if whole != nil {
				st, err = foldMapped(p, snap, whole)
			} else {
				st, err = fold.FoldReader(p, snap, in, opt)
			}
			if err != nil {
				return foldInputErr(name, err)
			}
			out, err := appendMapped(st) // sized once for the state
			if err != nil {
				return foldInputErr(name, err)
			}
			_, err = cmd.OutOrStdout().Write(append(out, '\n'))
			return err
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "event-schema version to fold as (1.20.0 .. "+fold.Current().Version()+")")
	cmd.Flags().StringVar(&snapshot, "snapshot", "", "a state file to fold the log onto")
	cmd.Flags().StringVar(&snapshotProfile, "snapshot-profile", "", "event-schema version that wrote --snapshot (read through NormalizeSnapshotState)")
	_ = cmd.RegisterFlagCompletionFunc("profile", FixedCompletion(ProfileNames()...))
	_ = cmd.RegisterFlagCompletionFunc("snapshot-profile", FixedCompletion(ProfileNames()...))
	return cmd
}

// The fold command holds the collector off until its heap first reaches foldGCHold, then paces it
// at foldGCPercent until its live heap passes foldGCLimit (unless GOGC is set): a fold's garbage is
// mostly each envelope's decode, and at the default pace a small state's heap pays a collection
// cycle at every doubling. Measured on the 17 MB generator log, the pace cut the command's CPU
// time by about a tenth, and the hold the one cycle left (another fifteenth of the pairs log's).
// Before the hand-back the heap stays below about max(foldGCHold, foldGCLimit×(1+foldGCPercent/100)),
// whatever the state's size (docs/performance.md).
const (
	foldGCHold    = 64 << 20
	foldGCPercent = 400
	foldGCLimit   = 32 << 20
)

// foldWholeBytes is the largest log file fold maps into memory and folds in place (fold.FoldBytes:
// no copy of the log or of each envelope); a longer one, or a stream, is folded as it is read
// (fold.FoldReader), in memory bounded by the state, not the log (docs/performance.md).
const foldWholeBytes = 64 << 20

// errLogChanged is a mapped log file that shrank while it was folded: reading past its new end
// faults, and the fault is reported as this error instead of ending the process.
var errLogChanged = errors.New("the file changed while it was read (it shrank)")

// foldMapped folds a mapped log. The state keeps sub-slices of it until it is encoded.
func foldMapped(p fold.Profile, snap *fold.State, b []byte) (st fold.State, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer faultErr(&err)
	return fold.FoldBytes(p, snap, b)
}

// appendMapped encodes a state that may point into a mapped log.
func appendMapped(st fold.State) (out []byte, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer faultErr(&err)
	out, err = fold.AppendState(nil, st)
	if err != nil {
		err = fmt.Errorf("encoding the state: %w", err)
	}
	return out, err
}

// faultErr turns a memory fault (a mapped file cut short) into errLogChanged; any other panic
// goes on.
func faultErr(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(interface{ Addr() uintptr }); ok && e != nil {
			*err = errLogChanged
			return
		}
		panic(r)
	}
}

// readWhole reads a file of the given size in one buffer (and whatever it grew by since).
func readWhole(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// foldInputErr reports a decode or fold error as bad input naming the file.
func foldInputErr(name string, err error) error {
	var ie *fold.InputError
	if errors.As(err, &ie) {
		return BadInput("%s: %v", name, ie)
	}
	return BadInput("%s: %v", name, err)
}

// ProfileNames lists every fold profile as its schema version, for --profile completion.
func ProfileNames() []string {
	var out []string
	for _, p := range fold.Profiles() {
		out = append(out, p.String())
	}
	return out
}
