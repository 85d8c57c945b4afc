package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cputime"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
)

// The generator runs whose reach of reference/fold is measured, from the repository root.
var reachRuns = []struct{ name, pkg, run string }{
	{"property kit", "./kits/foldprops", "^TestReferenceFoldProperties$"},
	{"vectors fuzz", "./vectors/fuzz", "^TestGeneratedCasesReachEveryRefusal$"},
}

// unreachedWhy says, for every function of reference/fold some statements of which neither
// generator reaches, why the generators do not (reference/fold's own tests and fuzz targets reach
// most of them). TestGeneratorReach fails on a function missing here, and on a reason for a
// function the generators reach whole, so the table stays true.
var unreachedWhy = map[string]string{
	// the fold's refusals only the Go API meets: every path the generators drive decodes first
	"fold.go: (*folder).add":      "Fold of an spi.Envelope without payload, or malformed and out of sequence: a decoder refuses it before the fold sees it",
	"fold.go: (*folder).shapeErr": "Fold of an spi.Envelope malformed and out of sequence, which no decoder lets through",
	"fold.go: (*pass).apply":      "Fold of an spi.Envelope whose metadata or payload is not JSON, which no decoder lets through",
	"fold.go: (*pass).fields":     "a payload that is not JSON, met only through the Go API",
	"fold.go: readMeta":           "metadata null or not JSON, met only through the Go API: a decoder turns null into absent",
	"fold.go: Fold":               "its error return: the property kit folds well-formed logs through Fold",
	"fold.go: FoldReader":         "its error return: the stream path is the CLI's, not the generators'",
	// the stream decoder, the other entry points, and syntax errors the protocol cannot carry
	"decode.go: DecodeLog":                     "the stream decoder of `loom-conform fold`",
	"decode.go: decodeReader":                  "the stream decoder: framing across reads",
	"decode.go: (*logReader).buffered":         "the stream decoder",
	"decode.go: (*logReader).keep":             "the stream decoder",
	"decode.go: (*logReader).eofErr":           "the stream decoder's refusals of a truncated log",
	"decode.go: (*logReader).trailing":         "the stream decoder's refusal of data after the array",
	"decode.go: (*logReader).element":          "the stream decoder's framing and its bounds",
	"decode.go: skipInString":                  "the stream decoder's framing",
	"decode.go: escapedAtEnd":                  "the stream decoder's framing",
	"decode.go: elementField":                  "the stream decoder's error wording",
	"decode.go: readBufferSize":                "the stream decoder's buffer for a log of known small size (the CLI)",
	"decode.go: decodeBytes":                   "JSON syntax errors between envelopes: the vectors protocol carries envelopes inside a JSON request, so they are valid JSON",
	"decode.go: (*decoder).envelope":           "JSON syntax errors inside an envelope, which the vectors protocol cannot carry",
	"decode.go: memberAt":                      "the wording of a JSON syntax error, which the vectors protocol cannot carry",
	"decode.go: DecodeLogBytes":                "a public decoder the fold's paths do not call",
	"decode.go: describe":                      "the wording of a refusal of a long value",
	"envelopes.go: DecodeEnvelope":             "the decoder of the store bridge and the wire carrier",
	"envelopes.go: (*Envelopes).UnmarshalJSON": "the decoder of the store bridge and the wire carrier",
	"errors.go: (*InputError).Error":           "the wording of an error without an envelope index",
	// JSON scanning: syntax errors the protocol cannot carry, and shapes the generators do not spell
	"scan.go: skipValue":             "JSON syntax errors and the nesting bound",
	"scan.go: skipNumber":            "JSON syntax errors",
	"scan.go: skipLiteral":           "JSON syntax errors",
	"scan.go: skipStringSpecial":     "JSON syntax errors",
	"scan.go: validJSON":             "JSON syntax errors",
	"scan.go: eachFieldMode":         "JSON syntax errors in a payload the Go API passes unvalidated",
	"scan.go: eachElem":              "JSON syntax errors in an array",
	"scan.go: endsAt":                "JSON syntax errors after an object",
	"scan.go: isHex4":                "an invalid \\u escape",
	"scan.go: hex4":                  "upper-case hex digits in a \\u escape",
	"scan.go: (*SyntaxError).Error":  "the wording of a JSON syntax error",
	"scan.go: (*SyntaxError).Unwrap": "errors.Is on a JSON syntax error",
	"scan.go: syntaxErr":             "JSON syntax errors",
	"scan.go: plain8":                "a helper of the scanner's tests",
	"scan.go: trimRaw":               "white space around a value the Go API passes",
	"scan.go: appendUnescaped":       "escapes the generators do not spell (\\b, \\f, a raw invalid byte)",
	"scan.go: skipTrusted":           "white space inside a value a decoder already validated",
	"scan.go: skipStringTrustedEsc":  "an escape at the very end of a validated string",
	"scan.go: hasBackslash":          "a backslash after a non-ASCII byte",
	"scan.go: objectMembers":         "an object of more than 16 members in a carry or a snapshot",
	// canonical JSON of Go values and of texts, the emit digest: not the fold
	"canonical.go: CanonicalJSON":                  "the canonical form of a JSON text, not the fold (the canonical vectors)",
	"canonical.go: appendCanonical":                "the canonical form of Go values (Canonical), for callers, not the fold",
	"canonical.go: appendCanonicalRaw":             "non-canonical leaves the generators do not spell",
	"canonical.go: appendMembers":                  "equal member names in a transcoded leaf (the last is kept)",
	"canonical_deep.go: (containerIndex).valueEnd": "values nested 16 deep or more in a kept value (the indexed transcoder)",
	"canonical_deep.go: appendIndexed":             "values nested 16 deep or more in a kept value (the indexed transcoder)",
	"canonical_deep.go: indexContainers":           "values nested 16 deep or more in a kept value (the indexed transcoder)",
	"canonical.go: plainString":                    "strings that need escaping inside a transcoded leaf",
	"canonical.go: appendQuoted":                   "control characters in names",
	"canonical.go: nextUnits":                      "names with astral characters against lone surrogates",
	"canonical.go: compareUTF16":                   "names equal up to a lone surrogate",
	"canonical.go: appendNumber":                   "number formats of values the fold never computes",
	"canonical_fast.go: appendCanonicalRawMessage": "a leaf that is not JSON: only a State built in Go",
	"canonical_fast.go: canonicalPrefix":           "deep nesting in a kept value",
	"canonical_fast.go: literalAt":                 "a truncated literal: only a State built in Go",
	"canonical_fast.go: plainStringAt":             "rare string shapes in a kept value",
	"canonical_fast.go: canonicalNumberAt":         "rare number spellings in a kept value",
	"digest.go: EmitDigest":                        "the emit digest, not the fold (the digest vectors)",
	"digest.go: EmitDigestOf":                      "the emit digest of a Go value, not the fold",
	// the state's printing and reading: what only a State built in Go or a snapshot file meets
	"state_json.go: (State).MarshalJSON":    "its error: a State whose raw values are not JSON, built in Go",
	"state_json.go: CanonicalState":         "an alias of MarshalJSON for callers",
	"state_json.go: Equal":                  "a comparison for callers",
	"sort_keys.go: sortBytewise":            "its radix path: an object of 256 keys or more, which no generated log's state holds (TestSortBytewiseAgrees holds it to slices.Sort)",
	"sort_keys.go: prefix8":                 "the radix path's digit: an object of 256 keys or more, which no generated log's state holds",
	"state_json.go: (*State).UnmarshalJSON": "the encoding/json entry to ParseState",
	"state_json.go: (Frame).tree":           "a frame without attempt: only a State built in Go",
	"state_json.go: ParseState":             "a snapshot that is not JSON: the protocol carries it inside a JSON request (the CLI's --snapshot meets it)",
	"state_encode.go: AppendState":          "a public encoder the fold's paths do not call",
	"state_encode.go: appendState":          "its error returns: a State whose raw values are not JSON, built in Go",
	"state_encode.go: appendFrame":          "its error returns: a frame whose raw values are not JSON, built in Go",
	"state_encode.go: appendVariables":      "its error returns: variables whose raw values are not JSON, built in Go",
	"state_encode.go: appendResources":      "its error return, and a dimension named custom beside custom names: only a State built in Go",
	"state_encode.go: appendQuarantined":    "its error return: a message that is not JSON, built in Go",
	"state_encode.go: appendRawList":        "its error return: a list entry that is not JSON, built in Go",
	"state_encode.go: appendObject":         "its error return: a value that is not JSON, built in Go",
	"state_encode.go: appendDecision":       "its error return: a decision member that is not JSON, built in Go",
	// not the fold
	"evidence.go: DecisionEvidenceOrder": "the order evidence reads decisions in, a runtime reader",
	"catalog.go: ReservedVariables":      "the catalogue docs/events.md is generated from",
	"catalog.go: EventShapes":            "the catalogue docs/events.md is generated from",
	"catalog.go: EventsMarkdown":         "the catalogue docs/events.md is generated from",
	"checks.go: Checks":                  "the check registry",
	"mutants.go: Mutants":                "the mutant registry",
	"profile.go: ProfileFor":             "a version outside 1.20.0 .. 1.26.0",
	"profile.go: MustProfile":            "its panic on a bad version",
	"profile.go: (Profile).String":       "printing a profile",
	"profile.go: (Profile).m":            "the zero Profile, read as the current schema",
}

// generatorReach measures the statement coverage of reference/fold while each generator run of
// reachRuns folds its cases (root: the repository), one cover profile per run.
func generatorReach(tb testing.TB, root string) (runs []Reach, union Reach) {
	dir := tb.TempDir()
	var profiles []string
	for i, r := range reachRuns {
		p := filepath.Join(dir, fmt.Sprintf("cover-%d.out", i))
		cmd := exec.Command("go", "test", r.pkg, "-run", r.run, "-count=1", "-coverpkg=./reference/fold", "-coverprofile="+p,
			"-rapid.seed=1", "-rapid.checks=100")
		if r.pkg != "./kits/foldprops" {
			cmd.Args = cmd.Args[:len(cmd.Args)-2] // the rapid flags are the property kit's
		}
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
		rr, err := ReadCoverProfiles(filepath.Join(root, "reference/fold"), p)
		if err != nil {
			tb.Fatal(err)
		}
		runs, profiles = append(runs, rr), append(profiles, p)
	}
	union, err := ReadCoverProfiles(filepath.Join(root, "reference/fold"), profiles...)
	if err != nil {
		tb.Fatal(err)
	}
	return runs, union
}

// foldRuleFiles hold the fold's rules: its handlers, the carry and quarantine rules, the snapshot
// reader and the normaliser, and the envelope loop.
var foldRuleFiles = []string{"fold.go", "handlers_execution.go", "handlers_facts.go", "handlers_step.go", "carry.go",
	"quarantine.go", "normalize.go", "numbers.go", "object_builder.go", "state_json.go"}

// generatorSection is the performance.md section on the generators: their reach of
// reference/fold and their throughput.
func generatorSection(tb testing.TB, root string) string {
	runs, union := generatorReach(tb, root)
	var b strings.Builder
	b.WriteString("## Generators: reach of the fold and throughput\n\n" +
		"Statement coverage of `reference/fold` while the generators' cases fold (`go test -coverpkg=./reference/fold`): the " +
		"property kit (`TestReferenceFoldProperties`, rapid seed 1, 100 cases per property, hostile logs included) and " +
		"`vectors fuzz`'s generator (`TestGeneratedCasesReachEveryRefusal`: 10 000 cases folded by the reference in process). " +
		"Reproduce with `cd bench && LOOM_GEN_REACH=1 go test -run TestGeneratorReach -v`.\n\n" +
		"| statements | property kit | vectors fuzz | either |\n| --- | ---: | ---: | ---: |\n")
	row := func(name string, files ...string) {
		n, _, p0 := runs[0].Percent(files...)
		_, _, p1 := runs[1].Percent(files...)
		_, _, pu := union.Percent(files...)
		fmt.Fprintf(&b, "| %s (%d) | %.1f %% | %.1f %% | **%.1f %%** |\n", name, n, p0, p1, pu)
	}
	row("the fold's rules: "+strings.Join(foldRuleFiles, ", "), foldRuleFiles...)
	row("all of reference/fold")
	b.WriteString("\nEvery handler is reached, and every refusal the vectors protocol can carry (each error kind, each envelope " +
		"member, each part of a snapshot). What neither generator reaches, and why:\n\n" +
		"| function | statements | why |\n| --- | ---: | --- |\n")
	var fns []string
	for fn := range union.Unreached {
		fns = append(fns, fn)
	}
	sort.Strings(fns)
	for _, fn := range fns {
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", fn, union.Unreached[fn], unreachedWhy[fn])
	}
	b.WriteString("\nThroughput, CPU time of this process, the fastest of 3 rounds:\n\n| generator | per CPU-second |\n| --- | ---: |\n")
	for _, t := range generatorThroughput() {
		fmt.Fprintf(&b, "| %s | %s |\n", t[0], t[1])
	}
	return b.String() + "\n"
}

// generatorThroughput measures each generator over a fixed seed set.
func generatorThroughput() [][2]string {
	best := func(f func() int) (time.Duration, int) {
		var d time.Duration = 1 << 62
		n := 0
		for range 3 {
			c0 := cputime.Process()
			n = f()
			d = min(d, cputime.Process()-c0)
		}
		return d, n
	}
	var out [][2]string
	for _, g := range []struct {
		name string
		o    foldprops.GenOptions
	}{{"`foldprops.Log` (default options)", foldprops.GenOptions{}}, {"`foldprops.Log` (Hostile)", foldprops.GenOptions{Unusual: true, Hostile: true}}} {
		d, envs := best(func() int {
			n := 0
			for seed := range 500 {
				n += len(foldprops.Log(g.o).Example(seed))
			}
			return n
		})
		out = append(out, [2]string{g.name, fmt.Sprintf("%.0f logs, %.0f envelopes", 500/d.Seconds(), float64(envs)/d.Seconds())})
	}
	d, _ := best(func() int {
		cfg := fuzz.Config{}
		for s := range uint64(2000) {
			fuzz.Generate(s, cfg.ProfileOf(s))
		}
		return 0
	})
	out = append(out, [2]string{"`fuzz.Generate` (`vectors fuzz`)", fmt.Sprintf("%.0f cases", 2000/d.Seconds())})
	props, tg := foldprops.Properties(), foldprops.Reference()
	d, _ = best(func() int {
		for i := range 400 {
			p := props[i%len(props)]
			if err := p.Check(tg, p.Gen.Example(i)); err != nil {
				panic(err)
			}
		}
		return 0
	})
	out = append(out, [2]string{"a property check of `foldprops.Properties()` (generate and check, the eight in turn)", fmt.Sprintf("%.0f checks", 400/d.Seconds())})
	return out
}

// TestGeneratorReach measures the generators' reach of reference/fold and fails when a function
// some statements of which neither reaches has no reason in unreachedWhy, or when a reason is
// kept for a function reached whole. LOOM_GEN_REACH=1 runs it (it runs go test twice).
func TestGeneratorReach(t *testing.T) {
	if os.Getenv("LOOM_GEN_REACH") == "" && os.Getenv("LOOM_PERF_DOC") == "" {
		t.Skip("set LOOM_GEN_REACH=1 to measure the generators' reach of reference/fold")
	}
	_, union := generatorReach(t, "..")
	for fn, n := range union.Unreached {
		if unreachedWhy[fn] == "" {
			t.Errorf("generator reach: %s: %d statements no generator reaches, and no reason in unreachedWhy", fn, n)
		}
	}
	for fn := range unreachedWhy {
		if union.Unreached[fn] == 0 {
			t.Errorf("generator reach: unreachedWhy[%q]: the generators reach it whole, drop the reason", fn)
		}
	}
	n, r, p := union.Percent(foldRuleFiles...)
	t.Logf("the fold's rules: %d of %d statements (%.1f %%); all of reference/fold: %.1f %%", r, n, p, func() float64 { _, _, p := union.Percent(); return p }())
	if os.Getenv("LOOM_GEN_REACH") != "" {
		t.Log("\n" + generatorSection(t, ".."))
	}
}
