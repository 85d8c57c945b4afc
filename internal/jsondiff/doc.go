// Package jsondiff shows two values the way a bridge or the wire carried them: as JSON, never as
// Go types. Every surface that shows a difference to a target's author (a kit's Diff, a replay or
// golden divergence, a kernel check, a fold vector) renders it here, in one form:
//
//	differs at /1/payload/n
//	  [
//	    {"eventType":"A","payload":{"n":0},"sequence":0},
//	    {
//	      "eventType": "B",
//	-     "payload": {"n":1},
//	+     "payload": {"n":2},
//	      "sequence": 1,
//	    },
//	  ]
//
// The first line names the JSON Pointers (RFC 6901) of the first differences; the lines below are
// the values with object keys in sorted order, one member or element a line, "-" for want and "+"
// for got; a member one side lacks is said on that side, as (no "name"). Members and elements equal on both sides are shown on one line, and long runs of them
// far from a difference are counted, not shown. Long values are elided with "…", never inside a
// character or an escape.
//
//	fmt.Println(jsondiff.Diff(want, got))    // "" when they carry the same JSON
//	fmt.Println(jsondiff.Compact(v, 80))     // one line, at most 80 characters
package jsondiff
