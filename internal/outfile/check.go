package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Output is one file a run writes: the flag that asked for it, its path ("" = not asked for,
// "-" = stdout) and the function that writes its content.
type Output struct {
	Flag, Path string
	Write      func(io.Writer) error
}

// ToStdout reports whether one of outs goes to stdout (the verb then moves its own stdout text to
// stderr, so stdout holds exactly that output).
func ToStdout(outs []Output) bool {
	for _, o := range outs {
		if o.Path == "-" {
			return true
		}
	}
	return false
}

// Check checks, before a run, that every output can be written and that no two are one file:
// at most one is "-" (stdout is the file stdout, when given), no two name the same path or the
// same device and inode after links are resolved, and each path passes Target. The error names
// the flags and what is wrong.
func Check(outs []Output, stdout *os.File) error {
	type seen struct {
		flag, path string
		key        string
		info       os.FileInfo
	}
	var prev []seen
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		cur := seen{flag: o.Flag, path: o.Path}
		if o.Path == "-" {
			cur.key = "-"
			if stdout != nil {
				cur.info, _ = stdout.Stat()
			}
		} else {
			if err := Target(o.Path); err != nil {
				return fmt.Errorf("%s %s: %w", o.Flag, o.Path, err)
			}
			cur.key = resolved(o.Path)
			cur.info, _ = os.Stat(o.Path)
		}
		for _, p := range prev {
			same := p.key == cur.key || p.info != nil && cur.info != nil && os.SameFile(p.info, cur.info)
			switch {
			case !same:
			case cur.key == "-" && p.key == "-":
				return fmt.Errorf("%s -: %s already writes to stdout (at most one output may be -)", o.Flag, p.flag)
			case cur.key == "-" || p.key == "-":
				return fmt.Errorf("%s %s and %s %s are both stdout: each output needs a file of its own", p.flag, p.path, o.Flag, o.Path)
			default:
				return fmt.Errorf("%s %s and %s %s are the same file: each output needs a file of its own", p.flag, p.path, o.Flag, o.Path)
			}
		}
		prev = append(prev, cur)
	}
	return nil
}

// resolved is a path's comparable form: absolute, with the links of its folder resolved (the file
// itself is compared by device and inode when it exists).
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

// ErrLink is the error of a path that is a symbolic link to a file or to nothing.
var ErrLink = errors.New("is a symbolic link")

// Target checks that path can be written whole: it is a stream (written in place), or a regular
// file or no file at all in a folder that exists and can be written. A symbolic link to a file or
// to nothing, a directory and a read-only file are refused with what is wrong.
func Target(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return folderWritable(filepath.Dir(path))
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		tst, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%w to %s, which does not exist (a dangling link); loom-conform neither follows nor replaces a link: name the file itself, or remove the link", ErrLink, to)
		case err != nil:
			return fmt.Errorf("%w to %s: %v", ErrLink, to, err)
		case stream(tst.Mode()):
			return nil
		}
		return fmt.Errorf("%w to %s; loom-conform neither follows nor replaces a link: name the file itself, or remove the link (- writes to stdout)", ErrLink, to)
	case st.IsDir():
		return errors.New("is a directory")
	case stream(st.Mode()):
		return nil
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%s)", st.Mode().Type())
	case st.Mode().Perm()&0o222 == 0:
		return fmt.Errorf("is read-only (mode %s): make it writable or name another file", st.Mode().Perm())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot be written: %v", strings.TrimPrefix(err.Error(), "open "+path+": "))
	}
	f.Close()
	return folderWritable(filepath.Dir(path))
}

// stream reports whether a file of this mode is written in place: a character device, a named
// pipe or a socket.
func stream(m fs.FileMode) bool {
	return m&(fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0
}

// folderWritable checks that dir exists and a file can be created in it (the temporary file),
// leaving nothing behind.
func folderWritable(dir string) error {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	f, err := createTemp(dir, "check")
	if err != nil {
		return fmt.Errorf("directory %s cannot be written: %v", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
