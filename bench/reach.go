package bench

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Reach is the statement coverage of one package while some tests ran: per file the statements
// and those reached, per function the statements not reached.
type Reach struct {
	Files     map[string][2]int // file (base name) -> {statements, reached}
	Unreached map[string]int    // "file: Func" -> statements not reached
}

// coverBlock is one line of a Go cover profile.
type coverBlock struct {
	file             string // base name
	startLine, endLn int
	startCol, endCol int
	stmts, count     int
}

// ReadCoverProfiles reads Go cover profiles (go test -coverprofile) of the package in dir and
// returns its reach over all of them: a statement counts as reached when any run reached it.
func ReadCoverProfiles(dir string, paths ...string) (Reach, error) {
	blocks := map[string]coverBlock{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return Reach{}, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "mode:") || line == "" {
				continue
			}
			b, err := parseBlock(line)
			if err != nil {
				f.Close()
				return Reach{}, fmt.Errorf("%s: %w", p, err)
			}
			key := fmt.Sprintf("%s:%d.%d,%d.%d", b.file, b.startLine, b.startCol, b.endLn, b.endCol)
			if prev, ok := blocks[key]; ok {
				b.count += prev.count
			}
			blocks[key] = b
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return Reach{}, err
		}
	}
	funcs, err := funcSpans(dir)
	if err != nil {
		return Reach{}, err
	}
	r := Reach{Files: map[string][2]int{}, Unreached: map[string]int{}}
	for _, b := range blocks {
		fc := r.Files[b.file]
		fc[0] += b.stmts
		if b.count > 0 {
			fc[1] += b.stmts
		} else {
			r.Unreached[b.file+": "+funcs.at(b.file, b.startLine)] += b.stmts
		}
		r.Files[b.file] = fc
	}
	return r, nil
}

// Percent is the share of statements reached in the given files (all files when none is given).
func (r Reach) Percent(files ...string) (stmts, reached int, pct float64) {
	for f, c := range r.Files {
		if len(files) == 0 || contains(files, f) {
			stmts, reached = stmts+c[0], reached+c[1]
		}
	}
	if stmts > 0 {
		pct = 100 * float64(reached) / float64(stmts)
	}
	return stmts, reached, pct
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseBlock reads "path/file.go:12.3,14.5 2 1".
func parseBlock(line string) (coverBlock, error) {
	colon := strings.LastIndex(line, ".go:")
	if colon < 0 {
		return coverBlock{}, fmt.Errorf("not a cover block: %q", line)
	}
	var b coverBlock
	b.file = filepath.Base(line[:colon+3])
	var err error
	fields := strings.Fields(line[colon+4:])
	if len(fields) != 3 {
		return coverBlock{}, fmt.Errorf("not a cover block: %q", line)
	}
	if _, err = fmt.Sscanf(fields[0], "%d.%d,%d.%d", &b.startLine, &b.startCol, &b.endLn, &b.endCol); err != nil {
		return coverBlock{}, fmt.Errorf("%q: %w", line, err)
	}
	if b.stmts, err = strconv.Atoi(fields[1]); err != nil {
		return coverBlock{}, err
	}
	if b.count, err = strconv.Atoi(fields[2]); err != nil {
		return coverBlock{}, err
	}
	return b, nil
}

// spans maps a file's lines to the function declared around them.
type spans map[string][]span

type span struct {
	from, to int
	name     string
}

func (s spans) at(file string, line int) string {
	for _, sp := range s[file] {
		if line >= sp.from && line <= sp.to {
			return sp.name
		}
	}
	return "(outside functions)"
}

// funcSpans parses the non-test Go files of dir and records each function's lines, named
// "Func" or "(*T).Method" / "(T).Method".
func funcSpans(dir string) (spans, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := spans{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(path)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = "(" + recvName(fd.Recv.List[0].Type) + ")." + name
			}
			out[base] = append(out[base], span{fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line, name})
		}
	}
	for _, s := range out {
		sort.Slice(s, func(i, j int) bool { return s[i].from < s[j].from })
	}
	return out, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvName(t.X)
	}
	return "?"
}
