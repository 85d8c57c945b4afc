package main

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/catalog"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/spf13/cobra"
)

func newSpecCmd() *cobra.Command {
	var coverage, asJSON, interpretations bool
	cmd := &cobra.Command{
		Use:   "spec [--coverage] [--json] [--interpretations]",
		Short: "List the specification's normative clauses, or their coverage by checks",
		Long: `List every normative clause of the kernel specification and ADR 0026 (id, section, level,
source, paraphrase). Interpretations — our decisions where the spec is silent — are clauses
with source "interpretation".

--coverage prints the clause × check matrix: for each clause the checks (tests, properties,
kit checks, vectors) that enforce it, then covered/uncovered counts per level.
--interpretations prints docs/interpretations.md (generated from the registry).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			switch {
			case interpretations:
				return spec.RenderInterpretations(out)
			case coverage:
				cov := spec.ComputeCoverage(catalog.Checks())
				if asJSON {
					enc := json.NewEncoder(out)
					enc.SetIndent("", "  ")
					return enc.Encode(cov)
				}
				return cov.Render(out)
			case asJSON:
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(spec.Clauses())
			}
			for _, c := range spec.Clauses() {
				if _, err := fmt.Fprintf(out, "%-48s %-9s %-8s %-14s %s\n", c.ID, c.Section, c.Level, c.Source, c.Summary); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&coverage, "coverage", false, "print the clause × check coverage matrix")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&interpretations, "interpretations", false, "print the interpretations document (Markdown)")
	return cmd
}
