package vectors

import (
	"bufio"
	"context"
	"fmt"
	"io"
)

// Serve speaks the serving side of the line protocol: it reads one request per line from r and
// writes f's answer as one line to w, until r ends or ctx is done. A line that is not a request
// gets an internal-error answer with an empty id (the harness then treats the process as out of
// protocol). `loom-conform vectors --serve` is Serve with Reference: a correct foreign fold,
// useful to test a harness or as a model for a port.
func Serve(ctx context.Context, r io.Reader, w io.Writer, f Folder) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		if len(b) == 0 {
			continue
		}
		var resp Response
		req, err := decodeRequest(b)
		if err != nil {
			resp = Response{Error: ErrInternal, Message: err.Error()}
		} else if resp, err = f.Answer(ctx, req); err != nil {
			resp = Response{ID: req.ID, Error: ErrInternal, Message: err.Error()}
		}
		out, err := encodeLine(resp)
		if err != nil {
			return fmt.Errorf("serve: encode answer: %w", err)
		}
		if _, err := bw.Write(out); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		if br.Buffered() == 0 { // flush when no further request is already waiting
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("serve: %w", err)
			}
		}
	}
}
