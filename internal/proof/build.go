package proof

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// buildExts are the files whose content makes a build: the code, the module's requirements, and the
// data the tests and the embedded corpora read. Prose (*.md) is not part of it: editing a doc does
// not make a proof stale.
var buildExts = map[string]bool{".go": true, ".mod": true, ".sum": true, ".json": true, ".ndjson": true,
	".js": true, ".py": true, ".sh": true, ".txt": true, ".sql": true}

// skipDirs are never part of a build: version control, outputs, and the benchmark module (its own
// go.mod).
var skipDirs = map[string]bool{".git": true, "test-results": true, "bin": true, "bench": true, "node_modules": true}

// BuildID names the build of the module rooted at root: "src:" and 16 hex digits of a SHA-256
// over the path and content of every build file (buildExts) below it, in path order. Two trees
// with the same id run the same tests on the same data; a proof record carries the id of the tree
// whose tests wrote it.
func BuildID(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && buildExts[filepath.Ext(path)] {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		fh, err := os.Open(f)
		if err != nil {
			return "", err
		}
		n, err := io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%d\x00", n)
	}
	return "src:" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ModuleRoot is the directory of the nearest go.mod at or above dir.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no go.mod at or above " + dir)
		}
		d = parent
	}
}

// thisBuild is the build id of the module a test binary runs in (its working directory is its
// package's), computed once per process, and only when a proof is recorded.
var thisBuild = sync.OnceValues(func() (string, error) {
	root, err := ModuleRoot(".")
	if err != nil {
		return "", err
	}
	return BuildID(root)
})
