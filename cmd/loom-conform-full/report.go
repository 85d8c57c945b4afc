package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/spf13/cobra"
)

// merger joins the JSON reports of every shard of one kind into one report and says whether the
// merged run passed.
type merger func(docs [][]byte) (merged []byte, ok bool, err error)

// mergers are the report kinds `report merge` knows, by the "kind" field of the report.
func mergers() map[string]merger {
	return map[string]merger{
		vectors.ReportKind:   mergeVectors,
		goldens.ReportKind:   mergeGoldens,
		deploysim.ReportKind: mergeDeploysim,
		certify.ReportKind:   mergeCertify,
		fitness.ReportKind: func(docs [][]byte) ([]byte, bool, error) {
			var reps []fitness.Report
			for i, d := range docs {
				var r fitness.Report
				if err := strictJSON(d, &r); err != nil {
					return nil, false, fmt.Errorf("report %d: %v", i+1, err)
				}
				reps = append(reps, r)
			}
			m, err := fitness.MergeReports(reps, fitness.Gates())
			if err != nil {
				return nil, false, err
			}
			var b bytes.Buffer
			err = m.RenderJSON(&b)
			return b.Bytes(), !m.Failed, err
		},
	}
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report merge|matrix A.json B.json …",
		Short: "Merge the JSON reports of sharded runs, or put several implementations' reports side by side",
	}
	cmd.AddCommand(newReportMatrixCmd())
	var out string
	merge := &cobra.Command{
		Use:   "merge [--out FILE|-] REPORT.json…",
		Short: "Merge the --shard i/n JSON reports of one split into the report one whole run gives",
		Long: `Long runners accept --shard i/n, a stable partition of their checks or gates, so a CI matrix
can run them side by side. report merge reads the JSON report of every shard of one split, checks
that they are all of one kind and that every shard 1/n … n/n is there exactly once, and writes the
report one whole run gives (--out, default stdout). Kinds: ` + strings.Join(mergerKinds(), ", ") + `.

A shard's own verdict is of its part only (a certify shard is partial, never certified); the merged
report is concluded again over the union by the same rules one run uses, so it carries the verdict
of the run. Reports of one kind must also be of one run: the same target, corpus and options
(certify shards need the same --seed). Format and rules: docs/sharding.md.

Exit 0 when the merged run passed (certify: certified), 1 when it did not, 2 on bad input (an
unreadable or malformed report, reports of different kinds or runs, a missing or repeated shard, an
item in a shard its id does not belong to).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var merged []byte
			outs := []outfile.Output{{Flag: "--out", Path: out, Write: func(w io.Writer) error { _, err := w.Write(merged); return err }}}
			if out == "" {
				outs[0].Path = "-"
			}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("report merge: %v", err)
			}
			var docs [][]byte
			kind := ""
			for _, name := range args {
				data, err := os.ReadFile(name)
				if err != nil {
					return cliverb.BadInput("report merge: %v", err)
				}
				var head struct {
					Kind string `json:"kind"`
				}
				if err := json.Unmarshal(data, &head); err != nil || head.Kind == "" {
					return cliverb.BadInput("report merge: %s: not a JSON report with a \"kind\" (want one of %s)", name, strings.Join(mergerKinds(), ", "))
				}
				if kind != "" && head.Kind != kind {
					return cliverb.BadInput("report merge: %s is a %s report, the others are %s", name, head.Kind, kind)
				}
				kind = head.Kind
				docs = append(docs, data)
			}
			m, ok := mergers()[kind]
			if !ok {
				return cliverb.BadInput("report merge: reports of kind %q cannot be merged (want one of %s)", kind, strings.Join(mergerKinds(), ", "))
			}
			merged, passed, err := m(docs)
			if err != nil {
				return cliverb.BadInput("report merge: %v", err)
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return err
			}
			if !passed {
				return cliverb.Verdict("report merge: the merged %s run did not pass", kind)
			}
			return nil
		},
	}
	merge.Flags().StringVar(&out, "out", "", "write the merged report to FILE (default: stdout)")
	cmd.AddCommand(merge)
	return cmd
}

func mergerKinds() []string {
	var ks []string
	for k := range mergers() {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
