package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// dsRefusalOrder: a write with an empty key or a negative version is an invalid argument, even when
// its version condition does not hold, and changes nothing (I-STORE-56).
func dsRefusalOrder(ctx context.Context, c *DurableStateStoreCase) error {
	_, err := c.Store.Set(ctx, "", json.RawMessage(`1`), spi.IfVersion(7))
	if e := expectErr(c, "Set", `"", 1, ifVersion 7) with (an empty key and a condition that does not hold`, err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	err = c.Store.Delete(ctx, "", spi.IfVersion(7))
	if e := expectErr(c, "Delete", `"", ifVersion 7) with (an empty key and a condition that does not hold`, err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	k := c.ExecID("order-state")
	_, err = c.Store.Set(ctx, k, json.RawMessage(`1`), spi.IfVersion(-1))
	if e := expectErr(c, "Set", fmt.Sprintf("%q, 1, ifVersion -1) with (a negative version on an absent key", k), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	return dsAbsent(ctx, c, k, "refused sets")
}
