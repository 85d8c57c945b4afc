package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/catalog"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/fitness/badges"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

func newBadgesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "badges check|render [FILE]",
		Short: "Check capability badges against their evidence, or draw them",
		Long: `A capabilities file (default capabilities.json; format in docs/badges.md) lists capabilities, each
with a maturity (experimental, beta, stable) and the evidence it claims: version constants of the
kernel manifest, check ids, fitness bench gates, goldens, deploy-simulation scenarios, or
certification reports (and the badges drawn from them) for a third party's store.

badges check resolves every claim and applies the maturity rules of docs/badges.md; it prints one
line per claim without evidence and per rule not met, naming the capability. Exit 0 when every
claim holds, 1 when one does not, 2 when the file is malformed.

badges render --out DIR draws one SVG badge per capability (DIR/<id>.svg, "/" as "-").`,
	}
	cmd.AddCommand(newBadgesCheckCmd(), newBadgesRenderCmd())
	return cmd
}

func loadCapabilities(args []string) (badges.File, string, error) {
	name := "capabilities.json"
	if len(args) == 1 {
		name = args[0]
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return badges.File{}, "", cliverb.BadInput("badges: %v", err)
	}
	f, err := badges.Parse(data, name)
	if err != nil {
		return badges.File{}, "", cliverb.BadInput("%v", err)
	}
	return f, name, nil
}

func newBadgesCheckCmd() *cobra.Command {
	var root, proofs string
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Resolve every capability's claimed evidence and apply the maturity rules",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, name, err := loadCapabilities(args)
			if err != nil {
				return err
			}
			rules, err := badges.DefaultRules()
			if err != nil {
				return err
			}
			idx, basis, err := harnessIndex(root, filepath.Dir(name), proofs)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			problems := badges.Check(f, rules, idx)
			out := cmd.OutOrStdout()
			for _, p := range problems {
				fmt.Fprintln(out, p)
			}
			bad := map[string]bool{}
			for _, p := range problems {
				bad[p.Capability] = true
			}
			fmt.Fprintf(out, "%d capabilities, %d with evidence for every claim, %d with problems (proven checks: %s)\n", len(f.Capabilities), len(f.Capabilities)-len(bad), len(bad), basis)
			if len(problems) > 0 {
				return cliverb.Verdict("badges: %d claim(s) without evidence in %s", len(problems), name)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", ".", "the harness checkout whose golden corpus resolves golden claims")
	cmd.Flags().StringVar(&proofs, "proofs", os.Getenv(proof.Env), "proof records of a test run: a check is proven when it rejected a registered mutant there (default: $"+proof.Env+"; without records, a check is proven when a registered mutant names it as its catching check)")
	return cmd
}

func newBadgesRenderCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "render [FILE] --out DIR",
		Short: "Draw one SVG badge per capability",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return cliverb.BadInput("badges render: --out DIR is required")
			}
			f, _, err := loadCapabilities(args)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return cliverb.BadInput("--out: %v", err)
			}
			var outs []outfile.Output
			for _, c := range f.Capabilities {
				path := filepath.Join(out, strings.ReplaceAll(c.ID, "/", "-")+".svg")
				outs = append(outs, outfile.Output{Flag: "--out", Path: path, Write: func(w io.Writer) error { return badges.WriteBadge(w, c) }})
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d badges written to %s\n", len(f.Capabilities), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the SVG badges to")
	return cmd
}

// harnessIndex builds what evidence resolves against: the kernel manifest's versions, every
// catalog check, the fitness bench and ratio gates, the golden corpus under root, and files
// relative to base. A check is proven when it rejected a registered mutant in the proof records
// of proofsDir; without records, when a registered mutant names it as its catching check. basis
// says which.
func harnessIndex(root, base, proofsDir string) (idx badges.Index, basis string, err error) {
	idx = badges.Index{
		Versions: badges.ManifestVersions(manifest.KernelManifest()),
		Checks:   map[string]bool{}, Proven: map[string]bool{}, Benches: map[string]bool{},
		Goldens: map[string]bool{}, Scenarios: map[string]bool{},
		Harness: toolVersion,
		ReadFile: func(p string) ([]byte, error) {
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			return os.ReadFile(p)
		},
	}
	for _, c := range catalog.Checks() {
		idx.Checks[c.ID] = true
	}
	registered := map[string]bool{}
	for _, m := range catalog.Mutants() {
		registered[m.ID] = true
		for _, c := range m.CaughtBy {
			idx.Checks[c] = true
		}
	}
	basis = "registered mutants (no proof records)"
	if proofsDir != "" {
		recs, _, err := proof.Load(proofsDir, ".", catalog.Mutants())
		if err != nil {
			return idx, "", err
		}
		for _, k := range proof.Kills(recs) {
			if registered[k.Mutant] {
				idx.Proven[k.Check] = true
			}
		}
		basis = "kills recorded in " + proofsDir
	} else {
		for _, m := range catalog.Mutants() {
			for _, c := range m.CaughtBy {
				idx.Proven[c] = true
			}
		}
	}
	for _, g := range fitness.Gates() {
		if (g.Kind == fitness.KindBench || g.Kind == fitness.KindRatio) && g.Pending == "" {
			idx.Benches[g.ID] = true
		}
	}
	goldens, err := filepath.Glob(filepath.Join(root, "goldens", "corpus", "*", "flow.json"))
	if err != nil {
		return idx, "", errors.New("goldens: " + err.Error())
	}
	for _, g := range goldens {
		idx.Goldens[filepath.Base(filepath.Dir(g))] = true
	}
	for _, n := range deploysim.ScenarioNames() {
		idx.Scenarios[n] = true
	}
	return idx, basis, nil
}
