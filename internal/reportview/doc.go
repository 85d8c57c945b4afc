// Package reportview is the one reader-facing view of every report the harness writes: a Page
// (verdict, headline, the checks as Items, the clauses they enforce) that certify, certify
// kernel, vectors, goldens and fitness fill from their own reports, and the renderers over it:
// one self-contained HTML page (WriteHTML) and the cross-implementation matrix (BuildMatrix, then
// WriteMatrixHTML, WriteMatrixMarkdown or WriteMatrixJSON).
//
//	p := reportview.Page{Title: "loom store certification", Verdict: "not-certified", Tone: reportview.Bad,
//		Headline: "NOT CERTIFIED", Items: items}
//	_ = reportview.WriteHTML(w, p)
//
// The page is built for the reader of a red run: the verdict, then the failures and unknowns
// (grouped when several share one cause, each with its clauses linked to their text, its diff and
// a copyable reproduce command), then a filterable table of every check, then the clause
// coverage. It loads nothing from the network, reads without JavaScript and prints.
package reportview
