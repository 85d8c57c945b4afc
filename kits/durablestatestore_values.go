package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func dsSetNeverSkipped(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("again")
	// A value every platform keeps exactly: numbers a double cannot hold are dsPrecision's.
	const value = `{"n":1234567,"f":0.5,"s":"x","o":{"k":[1,2]}}`
	last, err := dsSet(ctx, c, k, value, spi.Precondition{})
	if err != nil {
		return err
	}
	for _, w := range []struct {
		how, value  string
		conditional bool
	}{
		{"the same bytes again", value, false},
		{"the same value respelled", string(respell(json.RawMessage(value))), false},
		{"the same value on its current version", value, true},
	} {
		pre := spi.Precondition{}
		if w.conditional {
			pre = spi.IfVersion(last)
		}
		v, err := c.Store.Set(ctx, k, json.RawMessage(w.value), pre)
		if err != nil {
			return c.Failf("Set", fmt.Sprintf("%q, %s%s) %s (", k, clipS(w.value), preArg(pre), w.how), err, "nil")
		}
		if v <= last {
			return c.Failf("Set", fmt.Sprintf("%q, %s%s) %s, after version %d (", k, clipS(w.value), preArg(pre), w.how, last), v, fmt.Sprintf("a version > %d", last))
		}
		last = v
		if err := dsExpect(ctx, c, k, w.value, v, "Set of "+w.how); err != nil {
			return err
		}
	}
	return nil
}

func dsSetReplacesWhole(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("whole")
	v, err := dsSet(ctx, c, k, `{"a":1,"b":{"x":1,"y":2},"c":[1,2],"flag":true}`, spi.Precondition{})
	if err != nil {
		return err
	}
	for _, w := range []struct {
		how, value  string
		conditional bool
	}{
		{"an object lacking keys of the stored one", `{"b":{"x":3},"d":null}`, false},
		{"an object lacking keys, on the current version", `{"d":{"e":1}}`, true},
		{"an empty object", `{}`, false},
	} {
		pre := spi.Precondition{}
		if w.conditional {
			pre = spi.IfVersion(v)
		}
		if v, err = dsSet(ctx, c, k, w.value, pre); err != nil {
			return err
		}
		if err := dsExpect(ctx, c, k, w.value, v, "Set of "+w.how); err != nil {
			return err
		}
	}
	return nil
}

func dsSetGet(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("k")
	big := fmt.Sprintf(`{"blob":%q}`, string(make([]byte, 0))+string(bytesOf('x', 256<<10)))
	last := int64(0)
	for _, v := range []string{`{"a":1,"nested":{"b":[1,2,{"c":null}]},"s":"é ✓ \u0000 \"q\""}`, `[1,"two",3.5]`, `"plain"`, `0`, `true`, `null`, `{}`, big} {
		ver, err := dsSet(ctx, c, k, v, spi.Precondition{})
		if err != nil {
			return err
		}
		if ver <= last {
			return c.Failf("Set", fmt.Sprintf("%q, %s) after version %d (", k, clipS(v), last), ver, fmt.Sprintf("a version > %d", last))
		}
		last = ver
		if err := dsExpect(ctx, c, k, v, ver, "Set"); err != nil {
			return err
		}
	}
	return nil
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func dsPrecision(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("precise")
	v := `{"n":12345678901234567890,"big":123456789012345678901234567890,"pi":3.141592653589793238462643383279,"neg":-9007199254740993}`
	ver, err := dsSet(ctx, c, k, v, spi.Precondition{})
	if err != nil {
		return err
	}
	if err := dsExpect(ctx, c, k, v, ver, "Set with numbers a double cannot hold"); err != nil {
		return err
	}
	// A value differing from the stored one only where a double cannot tell is a new value.
	for _, w := range []string{bigValue, bigValueNext} {
		if ver, err = dsSet(ctx, c, k, w, spi.Precondition{}); err != nil {
			return err
		}
	}
	return dsExpect(ctx, c, k, bigValueNext, ver, "a Set differing from the stored value only in a number beyond 2^64")
}

func dsGetUnknown(ctx context.Context, c *DurableStateStoreCase) error {
	return dsAbsent(ctx, c, c.ExecID("never"), "nothing was set")
}

func dsInvalid(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("inv")
	cases := []struct {
		name, key, value string
		pre              spi.Precondition
	}{
		{"empty key", "", `1`, spi.Precondition{}},
		{"value not JSON", k, `{"a":`, spi.Precondition{}},
		{"empty value", k, ``, spi.Precondition{}},
		{"negative ifVersion", k, `1`, spi.IfVersion(-1)},
	}
	for _, tc := range cases {
		_, err := c.Store.Set(ctx, tc.key, json.RawMessage(tc.value), tc.pre)
		if e := expectErr(c, "Set", tc.name, err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	if err := expectErr(c, "Delete", "empty key", c.Store.Delete(ctx, "", spi.Precondition{}), spi.ErrInvalidArgument); err != nil {
		return err
	}
	return dsAbsent(ctx, c, k, "invalid sets")
}

// dsRoundtripValues: every value of the round-trip corpus, payloads and metadata alike, set
// unconditionally and then on its version, reads back as the same JSON value (I-PLUGIN-7).
func dsRoundtripValues(ctx context.Context, c *DurableStateStoreCase) error {
	for i, hv := range hardValues() {
		for j, value := range []string{hv.payload, hv.metadata} {
			if value == "" {
				continue
			}
			k := c.ExecID(fmt.Sprintf("value-%s-%d", hv.name, j))
			ver, err := dsSet(ctx, c, k, value, spi.Precondition{})
			if err != nil {
				return err
			}
			if err := dsExpect(ctx, c, k, value, ver, fmt.Sprintf("Set of corpus value %d (%s)", i, hv.name)); err != nil {
				return err
			}
			if ver, err = dsSet(ctx, c, k, value, spi.IfVersion(ver)); err != nil {
				return err
			}
			if err := dsExpect(ctx, c, k, value, ver, fmt.Sprintf("a Set of corpus value %d (%s) on its version", i, hv.name)); err != nil {
				return err
			}
		}
	}
	return nil
}
