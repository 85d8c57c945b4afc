package kits

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func rmCursorForged(ctx context.Context, c *ReadModelStoreCase) error {
	m, cur, err := firstCursor(ctx, c, "forged", 6)
	if err != nil {
		return err
	}
	if p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: cur}); err != nil {
		return c.Failf("Query", fmt.Sprintf("%q, the cursor it issued", m), pageOrErr(p, err), "nil")
	}
	forged := []forgedCursor{}
	for _, f := range []string{"x", "not-a-cursor", "id-0003", "eyJtIjoiYSIsImEiOiJiIn0", strings.Repeat("A", 4096), cur[:len(cur)/2], cur + "x", "\x00"} {
		forged = append(forged, forgedCursor{f, "made up"})
	}
	// The first page of 2 ends at id-0001; id-0002x is an id the model never held, so no cursor
	// the store issued can resume after it.
	forged = append(forged, forgeCursors(cur, "id-0001", "id-0002x")...)
	for _, f := range forged {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: f.cursor})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q, cursor %q) a cursor the store never issued: the cursor it issued, %q, %s (", m, clipS(f.cursor), clipS(cur), f.how), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	return nil
}

func rmCursorForeign(ctx context.Context, c *ReadModelStoreCase) error {
	m, cur, err := firstCursor(ctx, c, "home", 6)
	if err != nil {
		return err
	}
	for _, other := range []string{c.ExecID("other"), m + "x", upper(m)} {
		for _, id := range rmIDs(6) {
			if err := rmUpsert(ctx, c, other, id, `{}`); err != nil {
				return err
			}
		}
		p, err := c.Store.Query(ctx, other, spi.ReadModelQuery{Limit: 2, Cursor: cur})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q) with a cursor issued for %q (", other, m), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	return nil
}

func rmCursorStale(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("stale")
	ids := []string{"id-10", "id-20", "id-30", "id-40", "id-50", "id-60"}
	for _, id := range ids {
		if err := rmUpsert(ctx, c, m, id, `{"v":1}`); err != nil {
			return err
		}
	}
	p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2})
	if err != nil || len(p.Docs) != 2 || p.NextCursor == "" {
		return c.Failf("Query", fmt.Sprintf("%q, limit 2", m), pageOrErr(p, err), "2 documents and a next cursor")
	}
	// Upserts before the cursor's position, at it, and after it, then resume.
	for _, id := range []string{"id-05", "id-15", "id-20", "id-25", "id-70"} {
		if err := rmUpsert(ctx, c, m, id, `{"v":2}`); err != nil {
			return err
		}
	}
	var got []string
	cursor := p.NextCursor
	for cursor != "" {
		q, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: cursor})
		if err != nil {
			return c.Failf("Query", fmt.Sprintf("%q, a cursor kept across upserts", m), err, "nil")
		}
		for _, d := range q.Docs {
			got = append(got, d.ID)
		}
		cursor = q.NextCursor
	}
	want := []string{"id-25", "id-30", "id-40", "id-50", "id-60", "id-70"}
	return c.Diff("Query", fmt.Sprintf("%q) resumed after id-20 once id-05, id-15, id-20, id-25 and id-70 were upserted (", m), want, got)
}

// forgedCursor is a cursor the store never issued and what was done to make it.
type forgedCursor struct {
	cursor, how string
}

// cursorEncodings are the base64 alphabets a store may wrap its cursor in, tried in this order.
var cursorEncodings = []struct {
	name string
	enc  *base64.Encoding
}{
	{"base64url", base64.RawURLEncoding},
	{"base64", base64.RawStdEncoding},
	{"padded base64url", base64.URLEncoding},
	{"padded base64", base64.StdEncoding},
}

// maxCursorAlterations bounds how many one-character alterations a cursor gets; they are spread
// evenly over the whole cursor, and every segment's first and last character is always among them.
const maxCursorAlterations = 64

// forgeCursors returns cursors derived from cur, which the store issued for the page ending at id
// after: cur with after replaced by absent (an id the model never held) wherever after is readable
// in cur — as text, or inside a base64 segment — and cur altered in one character at positions
// spread across its whole length. An alteration that reads back as the very same bytes (base64's
// padding bits, which a lenient decoder ignores) is not a different cursor and is left out.
func forgeCursors(cur, after, absent string) []forgedCursor {
	var out []forgedCursor
	seen := map[string]bool{cur: true}
	add := func(f, how string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, forgedCursor{f, how})
		}
	}
	if strings.Contains(cur, after) {
		add(strings.ReplaceAll(cur, after, absent), fmt.Sprintf("its text %q replaced by %q", after, absent))
	}
	segs := cursorSegments(cur)
	for _, s := range segs {
		seg := cur[s[0]:s[1]]
		for _, e := range cursorEncodings {
			b, err := e.enc.DecodeString(seg)
			if err != nil || !bytes.Contains(b, []byte(after)) {
				continue
			}
			f := cur[:s[0]] + e.enc.EncodeToString(bytes.ReplaceAll(b, []byte(after), []byte(absent))) + cur[s[1]:]
			add(f, fmt.Sprintf("%q replaced by %q inside its %s characters %d..%d", after, absent, e.name, s[0], s[1]-1))
		}
	}
	positions := map[int]bool{}
	for _, s := range segs {
		positions[s[0]], positions[s[1]-1] = true, true
	}
	step := max(1, len(cur)/maxCursorAlterations)
	for i := 0; i < len(cur); i += step {
		positions[i] = true
	}
	positions[len(cur)-1] = true
	for i := range len(cur) {
		if !positions[i] {
			continue
		}
		alt := []byte(cur)
		switch c := alt[i]; {
		case c >= 'a' && c < 'z', c >= 'A' && c < 'Z', c >= '0' && c < '9':
			alt[i]++
		case c == 'z', c == 'Z', c == '9':
			alt[i] = 'a'
		default:
			continue
		}
		if sameBytes(cur, string(alt), i, segs) {
			continue
		}
		add(string(alt), fmt.Sprintf("character %d of %d changed from %q to %q", i, len(cur), cur[i], alt[i]))
	}
	return out
}

// cursorSegments returns the [start, end) spans of cur's runs of base64 characters ("A-Za-z0-9-_+/="),
// the pieces a store may have encoded separately and joined with some separator.
func cursorSegments(cur string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(cur); i++ {
		in := i < len(cur) && isBase64Char(cur[i])
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

func isBase64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '+' || c == '/' || c == '='
}

// sameBytes reports whether alt, which differs from cur at position i, decodes to the same bytes
// as cur in the base64 segment holding i under some encoding both decode under leniently.
func sameBytes(cur, alt string, i int, segs [][2]int) bool {
	for _, s := range segs {
		if i < s[0] || i >= s[1] {
			continue
		}
		for _, e := range cursorEncodings {
			a, errA := e.enc.DecodeString(cur[s[0]:s[1]])
			b, errB := e.enc.DecodeString(alt[s[0]:s[1]])
			if errA == nil && errB == nil && bytes.Equal(a, b) {
				return true
			}
		}
	}
	return false
}
