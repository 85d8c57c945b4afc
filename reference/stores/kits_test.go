package stores_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores"
)

// referenceImpls are the reference implementations spec §10 runs the SPI kits against.
var referenceImpls = []string{"memory", "sqlite"}

// storeSeams are the seams whose reference implementations are the stores of this package: every
// seam of the manifest but the ExecutionDispatcher, whose reference implementations are the memory
// and PostgreSQL dispatchers of reference/dispatch.
func storeSeams() []string {
	var out []string
	for _, s := range manifest.Spis() {
		if s.Name != manifest.SeamExecutionDispatcher {
			out = append(out, s.Name)
		}
	}
	return out
}

// kitRuns returns the seams whose kit a Go test of the given test sources runs: a test function
// Test<Seam>Kit that calls kits.<Seam>.
func kitRuns(files map[string][]byte) (map[string]bool, error) {
	runs := map[string]bool{}
	for name, src := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || !strings.HasSuffix(fn.Name.Name, "Kit") {
				continue
			}
			seam := strings.TrimSuffix(strings.TrimPrefix(fn.Name.Name, "Test"), "Kit")
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == seam {
						if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "kits" {
							runs[seam] = true
						}
					}
				}
				return true
			})
		}
	}
	return runs, nil
}

// kitsNotRun lists "<impl>: <seam>" for each store seam whose kit no test of a reference
// implementation runs, or whose run the catalog does not link to S10.kits.reference-impls.
func kitsNotRun(runs map[string]map[string]bool) []string {
	linked := map[string]bool{}
	for _, c := range stores.Checks() {
		for _, cl := range c.Clauses {
			if cl == "S10.kits.reference-impls" {
				linked[c.ID] = true
			}
		}
	}
	var out []string
	for _, impl := range referenceImpls {
		for _, seam := range storeSeams() {
			if !runs[impl][seam] || !linked["stores/"+impl+"/Test"+seam+"Kit"] {
				out = append(out, impl+": "+seam)
			}
		}
	}
	return out
}

// brokenSuites are reference-implementation test suites with one defect each (registered in
// stores.Mutants).
var brokenSuites = map[string]func(impl string, files map[string][]byte) map[string][]byte{
	// The SQLite ArchiveStore kit test renamed so go test never runs it.
	"suite/reference-impls/sqlite-archive-kit-dropped": func(impl string, files map[string][]byte) map[string][]byte {
		if impl != "sqlite" {
			return files
		}
		out := map[string][]byte{}
		for name, src := range files {
			out[name] = []byte(strings.ReplaceAll(string(src), "func TestArchiveStoreKit(", "func testArchiveStoreKit("))
		}
		return out
	},
}

// Reference: spec §10 — the SPI conformance kits run against the in-memory and SQLite reference
// implementations: each reference implementation's tests run the kit of every store seam.
func TestKitsRunOnReferenceStores(t *testing.T) {
	sources := map[string]map[string][]byte{}
	for _, impl := range referenceImpls {
		names, err := filepath.Glob(filepath.Join(impl, "*_test.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("tests of %s: %v (found %d files)", impl, err, len(names))
		}
		sources[impl] = map[string][]byte{}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			sources[impl][n] = b
		}
	}
	judge := func(mutate func(string, map[string][]byte) map[string][]byte) []string {
		runs := map[string]map[string]bool{}
		for impl, files := range sources {
			r, err := kitRuns(mutate(impl, files))
			if err != nil {
				t.Fatal(err)
			}
			runs[impl] = r
		}
		return kitsNotRun(runs)
	}
	for _, m := range judge(func(_ string, f map[string][]byte) map[string][]byte { return f }) {
		t.Errorf("stores/kits-on-reference-impls [S10.kits.reference-impls]: %s: no test runs the kit, want Test<Seam>Kit calling kits.<Seam> and linked in Checks", m)
	}
	var built []string
	for id := range brokenSuites {
		built = append(built, id)
	}
	for _, m := range proof.Registered(t, stores.Mutants(), "reference/stores:TestKitsRunOnReferenceStores", built) {
		missing := judge(brokenSuites[m.ID])
		if len(missing) == 0 {
			t.Errorf("stores/kits-on-reference-impls %v: %s = every kit run, want the dropped kit reported", m.Clauses, m.ID)
			continue
		}
		proof.Rejected(t, m.ID, "stores/kits-on-reference-impls", "stores/kits-on-reference-impls [S10.kits.reference-impls]: "+missing[0]+": no test runs the kit")
	}
}
