package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func asDelete(ctx context.Context, c *ArchiveStoreCase) error {
	d := c.Store.(spi.ArchiveDeleter)
	x, y := c.ExecID("del"), c.ExecID("del-keep")
	if err := archive(ctx, c, x, removed(x, 2)); err != nil {
		return err
	}
	ry := removed(y, 2)
	if err := archive(ctx, c, y, ry); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if err := expectArchive(ctx, c, x, nil, "DeleteExecution"); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q) again (", x), err, "nil")
	}
	return expectArchive(ctx, c, y, ry, "DeleteExecution of another id")
}

func asReplace(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace")
	rm := removed(x, 9)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	r3, r4 := env(x, 3, "resealed"), env(x, 4, "resealed")
	r := spi.SeqRange{From: 3, Through: 5}
	if err := rs.ReplaceSegments(ctx, x, r, []spi.Envelope{r3, r4}); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [3, 5], [seq 3..4]", x), err, "nil")
	}
	want := append(append(append([]spi.Envelope{}, rm[:3]...), r3, r4), rm[6:]...)
	if err := expectArchive(ctx, c, x, want, "ReplaceSegments([3,5], 3..4)"); err != nil {
		return err
	}
	// An empty replacement drops the range (I-STORE-19): 7 and 8 go, 6 and 9 stay.
	if err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 7, Through: 8}, nil); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [7, 8], []", x), err, "nil")
	}
	want = append(append([]spi.Envelope{}, want[:len(want)-3]...), want[len(want)-1])
	if err := expectArchive(ctx, c, x, want, "ReplaceSegments([7,8], no envelopes)"); err != nil {
		return err
	}
	bad := env(x, 8, "outside")
	err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 0, Through: 1}, []spi.Envelope{bad})
	if e := expectErr(c, "ReplaceSegments", fmt.Sprintf("%q, [0, 1], [seq 8]", x), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	return expectArchive(ctx, c, x, want, "a refused ReplaceSegments")
}

func asReplaceWhole(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace-whole")
	old := batch(x, 0, 4, "old")
	for i := range old {
		old[i].Metadata = json.RawMessage(fmt.Sprintf(`{"seal":{"v":%d},"keep":"old"}`, i))
	}
	if err := archive(ctx, c, x, old); err != nil {
		return err
	}
	fresh := []spi.Envelope{env(x, 1, "new"), env(x, 2, "new")}
	fresh[0].EventType, fresh[0].ID, fresh[0].WorkflowID, fresh[0].Timestamp = "KIT_RESEALED", "new-1", "wf-new", 42
	fresh[1].Metadata = json.RawMessage(`{"seal":{"v":9}}`)
	if err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 1, Through: 2}, fresh); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [1, 2], [seq 1..2]", x), err, "nil")
	}
	return expectArchive(ctx, c, x, []spi.Envelope{old[0], fresh[0], fresh[1], old[3]}, "ReplaceSegments([1,2]) with envelopes of other fields, the first without metadata")
}

func asReplaceInvalidAfterValid(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace-late-invalid")
	rm := removed(x, 9)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	events := []spi.Envelope{env(x, 2, "new"), env(x, 3, "new"), env(x, 8, "outside")}
	err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 2, Through: 5}, events)
	if e := expectArchive(ctx, c, x, rm, "a ReplaceSegments([2,5]) refused for its 3rd envelope at 8"); e != nil {
		return e
	}
	return expectErr(c, "ReplaceSegments", fmt.Sprintf("%q, [2, 5], [seq 2, 3, 8]", x), err, spi.ErrInvalidArgument)
}
