package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
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
		var evs []spi.Envelope
		if req.Events != nil {
			evs = make([]spi.Envelope, len(*req.Events))
			for i, raw := range *req.Events {
				if err := json.Unmarshal(raw, &evs[i]); err != nil {
					return fail(ErrInvalidEnvelope, err)
				}
			}
		}
		writer := p
		if req.SnapshotProfile != "" {
			if writer, err = fold.ProfileFor(req.SnapshotProfile); err != nil {
				return fail(ErrUnsupported, err)
			}
		}
		st, err := foldAs(p, writer, req.Snapshot, evs)
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

// foldAs reads a stored snapshot (if any) written by profile writer, normalising it when writer
// is older than p, and folds events onto it as profile p. It also checks copy-on-write (spec §3):
// the snapshot the fold was given must be unchanged afterwards.
func foldAs(p, writer fold.Profile, snapshot json.RawMessage, evs []spi.Envelope) (fold.State, error) {
	if len(snapshot) == 0 {
		return fold.Fold(p, nil, evs)
	}
	snap, err := fold.ParseState(snapshot)
	if err != nil {
		return fold.State{}, err
	}
	if writer != p {
		snap = fold.NormalizeSnapshotState(snap, writer)
	}
	before, err := snap.MarshalJSON()
	if err != nil {
		return fold.State{}, err
	}
	st, err := fold.Fold(p, &snap, evs)
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
	switch {
	case strings.HasPrefix(ie.Field, "snapshot"):
		return ErrInvalidSnapshot
	case ie.Field == "sequence":
		return ErrSequence
	case ie.Field == "executionId":
		return ErrMixedExecutions
	}
	return ErrInvalidEnvelope
}
