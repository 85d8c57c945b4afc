package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// Reference: I-PERF-10 — each verb's entry answers to the names of the command it builds, so a run
// that builds only the verb it names finds the same command the whole tree holds.
func TestVerbNames(t *testing.T) {
	var want []string
	for _, v := range verbs() {
		c := v.build()
		if got := append([]string{c.Name()}, c.Aliases...); !slices.Equal(got, v.names) {
			t.Errorf("cli/verb-names [I-PERF-10]: verbs() entry %v builds a command named %v, want the same names", v.names, got)
		}
		want = append(want, c.Name())
	}
	var got []string
	for _, c := range newRootCmd().Commands() {
		got = append(got, c.Name())
	}
	for _, name := range want {
		if !slices.Contains(got, name) {
			t.Errorf("cli/verb-names [I-PERF-10]: newRootCmd() commands = %v, want %s among them", got, name)
		}
	}
}

// Reference: I-PERF-10 — a run naming a verb (by its name or an alias) builds that verb alone; help,
// a flag first or an unknown verb build every verb; and the one-verb tree says and does what the
// whole tree would.
func TestRootBuildsOnlyTheNamedVerb(t *testing.T) {
	names := func(root *cobra.Command) []string {
		var out []string
		for _, c := range root.Commands() {
			out = append(out, c.Name())
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string // nil: every verb
	}{
		{[]string{"fold", "log.ndjson"}, []string{"fold"}},
		{[]string{"kernel-manifest"}, []string{"manifest"}},
		{[]string{"version"}, []string{"version"}},
		{[]string{"help", "fold"}, nil},
		{[]string{"--version"}, nil},
		{[]string{"fodl"}, nil},
		{nil, nil},
	} {
		got := names(newRootCmdFor(tc.args))
		want := tc.want
		if want == nil {
			want = names(newRootCmd())
		}
		if !slices.Equal(got, want) {
			t.Errorf("cli/lazy-tree [I-PERF-10]: newRootCmdFor(%q) commands = %v, want %v", tc.args, got, want)
		}
	}
	for _, args := range [][]string{{"fold", "--help"}, {"certify", "--help"}, {"manifest", "--json"}, {"version"}, {"spec", "I-PERF-10"}} {
		out := func(root *cobra.Command) string {
			var b bytes.Buffer
			root.SetArgs(args)
			root.SetOut(&b)
			root.SetErr(&b)
			_ = root.Execute()
			return b.String()
		}
		if lazy, whole := out(newRootCmdFor(args)), out(newRootCmd()); lazy != whole || lazy == "" {
			t.Errorf("cli/lazy-tree [I-PERF-10]: %q prints\n%s\nwith the one verb built, and\n%s\nwith the whole tree; want the same, not empty", args, lazy, whole)
		}
	}
}
