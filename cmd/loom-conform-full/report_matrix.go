package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/spf13/cobra"
)

func newReportMatrixCmd() *cobra.Command {
	var o struct {
		html, json, markdown string
		failing              bool
	}
	cmd := &cobra.Command{
		Use:   "matrix [--html FILE] [--json FILE] [--markdown FILE] [--failing] A.json B.json …",
		Short: "Put several implementations' reports of one kind side by side",
		Long: `report matrix reads the JSON reports of several implementations judged by the same kind of run
(certify --report of stores, certify kernel --report of kernels, vectors --report of folds,
goldens check --json, fitness --json) and shows them as one matrix: one column per
implementation, one row per check, rows grouped by the clause their check enforces, each cell the
check's verdict, and a summary row per implementation (the run's verdict, required checks passed,
recommendations met). In the HTML a failure opens to its message and diff, the command that
reproduces it and a link to it in that implementation's report (A.html, when the HTML report of
A.json is beside it), and the checks every implementation passed are hidden until asked for.
docs/matrix.md is an example.

  --html FILE      one self-contained, filterable page
  --json FILE      the matrix as data
  --markdown FILE  tables for a README (the default, to stdout, when no output is named)

--failing keeps, in the Markdown, only the checks some implementation did not pass. A column is
named by the bridge's implementation and version (certify), the fold's command (vectors), else
the target. Exit 0 when the matrix was written (it is a view: each report keeps its verdict),
2 on bad input (an unreadable report, reports of different kinds).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var m reportview.Matrix
			outs := []outfile.Output{
				{Flag: "--html", Path: o.html, Write: func(w io.Writer) error { return reportview.WriteMatrixHTML(w, m) }},
				{Flag: "--json", Path: o.json, Write: func(w io.Writer) error { return reportview.WriteMatrixJSON(w, m) }},
				{Flag: "--markdown", Path: o.markdown, Write: func(w io.Writer) error { return reportview.WriteMatrixMarkdown(w, m, o.failing) }},
			}
			if o.html == "" && o.json == "" && o.markdown == "" {
				outs[2].Path = "-"
			}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("report matrix: %v", err)
			}
			var pages []reportview.Page
			for _, name := range args {
				data, err := os.ReadFile(name)
				if err != nil {
					return cliverb.BadInput("report matrix: %v", err)
				}
				p, err := reportPage(data)
				if err != nil {
					return cliverb.BadInput("report matrix: %s: %v", name, err)
				}
				pages = append(pages, p)
			}
			var err error
			if m, err = reportview.BuildMatrix(pages); err != nil {
				return cliverb.BadInput("report matrix: %v", err)
			}
			for i, name := range args {
				m.Columns[i].Report = reportLink(name, o.html)
			}
			return writeOutputs(cmd, outs)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.html, "html", "", "write the matrix as a self-contained HTML page to FILE (- = stdout)")
	f.StringVar(&o.json, "json", "", "write the matrix as JSON to FILE (- = stdout)")
	f.StringVar(&o.markdown, "markdown", "", "write the matrix as Markdown to FILE (- = stdout; the default)")
	f.BoolVar(&o.failing, "failing", false, "Markdown: only the checks some implementation did not pass")
	for _, name := range []string{"html", "json", "markdown"} {
		_ = cmd.MarkFlagFilename(name)
	}
	return cmd
}

// reportPage reads one JSON report of any kind the harness writes as the page the matrix shows.
func reportPage(data []byte) (reportview.Page, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Kind == "" {
		return reportview.Page{}, fmt.Errorf("not a JSON report with a \"kind\" (want one of %s)", strings.Join(matrixKinds, ", "))
	}
	command := invokedAs(os.Args[0])
	switch head.Kind {
	case certify.ReportKind:
		r, err := certify.ReadReport(data)
		if err != nil {
			return reportview.Page{}, err
		}
		return certify.HTMLPage(r), nil
	case vectors.ReportKind:
		r, err := vectors.ReadReport(data)
		if err != nil {
			return reportview.Page{}, err
		}
		return r.HTMLPage(command), nil
	case goldens.ReportKind:
		var r goldens.Report
		if err := strictJSON(data, &r); err != nil {
			return reportview.Page{}, err
		}
		return r.HTMLPage(command), nil
	case fitness.ReportKind:
		var r fitness.Report
		if err := strictJSON(data, &r); err != nil {
			return reportview.Page{}, err
		}
		return r.HTMLPage(command), nil
	}
	return reportview.Page{}, fmt.Errorf("reports of kind %q have no matrix view (want one of %s)", head.Kind, strings.Join(matrixKinds, ", "))
}

var matrixKinds = []string{certify.ReportKind, vectors.ReportKind, goldens.ReportKind, fitness.ReportKind}

// reportLink is where the matrix page links for the report read from file: the HTML page beside it
// (same name, .html), relative to the matrix page's directory (page "" or "-": the working
// directory); "" when there is none (a JSON report is no page to read a failure in).
func reportLink(file, page string) string {
	html := strings.TrimSuffix(file, filepath.Ext(file)) + ".html"
	if st, err := os.Stat(html); html == file || err != nil || st.IsDir() {
		return ""
	}
	dir := "."
	if page != "" && page != "-" {
		dir = filepath.Dir(page)
	}
	absTarget, err1 := filepath.Abs(html)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(html)
	}
	rel, err := filepath.Rel(absDir, absTarget)
	if err != nil {
		return filepath.ToSlash(absTarget)
	}
	return filepath.ToSlash(rel)
}
