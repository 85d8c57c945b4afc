package kits

import (
	"context"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// esDeclaredMethodsWork makes one harmless call of every method the store declares (its Go
// interface, narrowed by spi.Capabilities) and fails each that answers unsupported (I-STORE-24).
// Other errors (a conflict, not found) are not judged here: the method's own checks judge them.
func esDeclaredMethodsWork(ctx context.Context, c *EventStoreCase) error {
	s := c.Store
	x, y := c.ExecID("declared"), c.ExecID("declared-copy")
	has := func(m string) bool { return spi.Has(manifest.SeamEventStore, s, m) }
	var errs []error
	judge := func(method, args string, err error) {
		if errors.Is(err, spi.ErrUnsupported) {
			errs = append(errs, c.Failf(method, args, err, "it to work: the store declares "+method+", so only an undeclared method may be skipped"))
		}
	}
	b := batch(x, 0, 1, "declared")
	judge("Append", appendArgs(x, b, spi.AppendOptions{}), s.Append(ctx, x, b, spi.AppendOptions{}))
	_, err := s.Read(ctx, x)
	judge("Read", fmt.Sprintf("%q", x), err)
	next := int64(1)
	if has(spi.MethodReadRange) {
		_, err := s.(spi.RangeReader).ReadRange(ctx, x, 0, 0)
		judge("ReadRange", fmt.Sprintf("%q, 0, 0", x), err)
	}
	if has(spi.MethodAcquireFence) {
		f, err := s.(spi.Fencer).AcquireFence(ctx, x)
		judge("AcquireFence", fmt.Sprintf("%q", x), err)
		if err == nil {
			fb := batch(x, next, 1, "declared-fenced")
			opts := spi.AppendOptions{Fence: f.Token}
			judge("Append", appendArgs(x, fb, opts), s.Append(ctx, x, fb, opts))
			next++
			if has(spi.MethodAcquireFenceIf) {
				_, err := s.(spi.ConditionalFencer).AcquireFenceIf(ctx, x, f.Token)
				judge("AcquireFenceIf", fmt.Sprintf("%q, %d", x, f.Token), err)
			}
		}
	}
	if has(spi.MethodAppendIfUnchanged) {
		ca := s.(spi.ConditionalAppender)
		a, err := ca.Observe(ctx, x)
		judge("Observe", fmt.Sprintf("%q", x), err)
		if err == nil {
			ib := batch(x, next, 1, "declared-if-unchanged")
			judge("AppendIfUnchanged", appendArgs(x, ib, spi.AppendOptions{}), ca.AppendIfUnchanged(ctx, x, a, ib, spi.AppendOptions{}))
		}
	}
	if has(spi.MethodStoreNow) {
		_, err := s.(spi.Clock).StoreNow(ctx)
		judge("StoreNow", "", err)
	}
	if has(spi.MethodSealingCapability) {
		_, err := s.(spi.SealingReporter).SealingCapability(ctx)
		judge("SealingCapability", "", err)
	}
	if has(spi.MethodListExecutionsPage) {
		_, err := s.(spi.ExecutionLister).ListExecutionsPage(ctx, "", 10)
		judge("ListExecutionsPage", `"", 10`, err)
	}
	if has(spi.MethodCopyPrefix) {
		judge("CopyPrefix", fmt.Sprintf("%q, %q, 0", x, y), s.(spi.PrefixCopier).CopyPrefix(ctx, x, y, 0))
	}
	if has(spi.MethodDeleteThrough) {
		judge("DeleteThrough", fmt.Sprintf("%q, 0", x), s.(spi.ThroughDeleter).DeleteThrough(ctx, x, 0))
	}
	if has(spi.MethodDeleteExecution) {
		judge("DeleteExecution", fmt.Sprintf("%q", x), s.(spi.ExecutionDeleter).DeleteExecution(ctx, x))
	}
	return errors.Join(errs...)
}
