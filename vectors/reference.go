package vectors

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Folder answers protocol requests: the reference fold in process (Reference), a foreign fold
// behind the line protocol (*Process), or a test double. An error means no answer (timeout, a
// crashed or misbehaving process): the vector's verdict is unknown.
type Folder interface {
	Answer(ctx context.Context, req Request) (Response, error)
}

// Reference answers requests with the reference fold (reference/fold), in process.
type Reference struct{}

// Answer implements Folder.
func (Reference) Answer(_ context.Context, req Request) (Response, error) {
	return answer(req), nil
}

// answer computes the reference answer of one request. Malformed requests get an error kind
// rather than a Go error: the serving side of the protocol answers every line.
func answer(req Request) Response {
	out := func(s string) Response { return Response{ID: req.ID, Output: &s} }
	fail := func(kind string, err error) Response {
		r := Response{ID: req.ID, Error: kind}
		if err != nil {
			r.Message = err.Error()
		}
		return r
	}
	switch req.Kind {
	case KindFold:
		p, err := fold.ProfileFor(req.Profile)
		if err != nil {
			return fail(ErrUnsupported, err)
		}
		// The events are folded as one JSON array through the envelope decoder every entry point
		// shares (the CLI's), so the refusals, their order and their messages are the same.
		var log []byte
		if req.Events != nil {
			log = joinArray(*req.Events)
		}
		writer := p
		if req.SnapshotProfile != "" {
			if writer, err = fold.ProfileFor(req.SnapshotProfile); err != nil {
				return fail(ErrUnsupported, err)
			}
		}
		st, err := foldAs(p, writer, req.Snapshot, log)
		if err != nil {
			return fail(foldErrorKind(err), err)
		}
		b, err := st.MarshalJSON()
		if err != nil {
			return fail(ErrInternal, err)
		}
		return out(string(b))
	case KindCanonical:
		if req.Input == nil {
			return fail(ErrInvalidJSON, errors.New("input: missing"))
		}
		b, err := fold.CanonicalJSON([]byte(*req.Input))
		if err != nil {
			return fail(ErrInvalidJSON, err)
		}
		return out(string(b))
	case KindDigest:
		if req.Segment == nil {
			return fail(ErrInternal, errors.New("segment: missing"))
		}
		d, err := fold.EmitDigest(*req.Segment, req.EventType, req.Payload)
		if err != nil {
			return fail(ErrInternal, err)
		}
		return out(d)
	}
	return fail(ErrUnsupported, errors.New("unknown kind "+string(req.Kind)))
}

// joinArray writes raw values as one JSON array.
func joinArray(raws []json.RawMessage) []byte {
	n := 2
	for _, r := range raws {
		n += len(r) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range raws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, ']')
}

// foldAs reads a stored snapshot (if any) written by profile writer, normalising it when writer
// is older than p (fold.NormalizeSnapshotFor), and folds the log (a JSON array of envelopes) onto it as profile p. It also
// checks copy-on-write (spec §3): the snapshot the fold was given must be unchanged afterwards.
func foldAs(p, writer fold.Profile, snapshot json.RawMessage, log []byte) (fold.State, error) {
	if len(snapshot) == 0 {
		return fold.FoldBytes(p, nil, log)
	}
	snap, err := fold.ParseState(snapshot)
	if err != nil {
		return fold.State{}, err
	}
	snap = fold.NormalizeSnapshotFor(snap, writer, p)
	before, err := snap.MarshalJSON()
	if err != nil {
		return fold.State{}, err
	}
	st, err := fold.FoldBytes(p, &snap, log)
	if err != nil {
		return st, err
	}
	if after, err := snap.MarshalJSON(); err != nil || string(after) != string(before) {
		return fold.State{}, errors.New("copy-on-write: the fold changed the snapshot it was given (spec §3)")
	}
	return st, nil
}

// foldErrorKind maps a reference-fold error to its error kind (docs/vectors.md).
func foldErrorKind(err error) string {
	var ie *fold.InputError
	if !errors.As(err, &ie) {
		return ErrInternal
	}
	return ie.Kind()
}
