package outfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAll writes every output asked for, each whole: its content is rendered first, passed
// through filter when it is not nil (the run's scrubber of secrets), then written to stdout ("-"),
// in place (a stream) or through a temporary file renamed over the path (WriteFile). The error
// names the flag and path.
func WriteAll(outs []Output, stdout io.Writer, filter func([]byte) []byte) error {
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		var b bytes.Buffer
		if err := o.Write(&b); err != nil {
			return fmt.Errorf("%s %s: %w", o.Flag, o.Path, err)
		}
		data := b.Bytes()
		if filter != nil {
			data = filter(data)
		}
		if o.Path == "-" {
			if _, err := stdout.Write(data); err != nil {
				return fmt.Errorf("%s -: %w", o.Flag, err)
			}
			continue
		}
		if err := WriteFile(o.Path, data); err != nil {
			return fmt.Errorf("%s %s: %w", o.Flag, o.Path, err)
		}
	}
	return nil
}

// WriteFile writes data to path whole or not at all: to a temporary file in path's folder, synced,
// then renamed over path (an existing file keeps its permissions; a new one gets 0644 less the
// umask). A stream is written in place. The path is checked again first (Target): a link made or
// a file made read-only during the run is refused, never written through.
func WriteFile(path string, data []byte) error {
	if err := Target(path); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && stream(st.Mode()) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return errors.Join(err, f.Close())
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil { // make the rename itself durable, where the system allows
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// createTemp creates a new file in dir named after base (".base.RANDOM.tmp"), with mode 0644 less
// the umask, as a file the user creates would have.
func createTemp(dir, base string) (*os.File, error) {
	for range 10 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
}
