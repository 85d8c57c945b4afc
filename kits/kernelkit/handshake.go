package kernelkit

import (
	"context"
	"fmt"
	"slices"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// handshakeChecks: wire.handshake and the method table (ADR 0026 A1, A2; spec §2).
func handshakeChecks() []kitCheck {
	return []kitCheck{
		check("kernel/handshake/versions", spec.Must, "wire.handshake states wire 1.0.0 (the spec's WIRE_ABI_VERSION, never bumped for event-schema changes), kernelAbi and eventSchema as the manifest has them",
			kkVersions, "A26.wire.own-version", "S4.v1_24.wire-unchanged", "I-WIRE-23"),
		check("kernel/handshake/syscalls", spec.Must, "every syscall the handshake lists is the manifest's entry (name, since, kind, feature), and every syscall without a feature flag is listed",
			kkSyscalls, "A26.wire.projection", "S2.syscalls.versioned-set", "S2.syscalls.available-iff-listed"),
		check("kernel/handshake/partition", spec.Must, "stream and ui are listed as channel syscalls and every other syscall as unary",
			kkPartition, "A26.wire.partition"),
		check("kernel/handshake/methods", spec.Must, "the handshake's methods are exactly those derived from its syscall table (the carrier methods, execution.deliver exactly when receive or select is listed, one syscall.<name> per syscall with its kind and feature), plus, optionally, the conformance extension's two methods with feature conformance",
			kkMethods, "A26.wire.derived", "A26.carrier.methods", "I-WIRE-2", "I-WIRE-20", "I-WIRE-24"),
		check("kernel/handshake/methods-served", spec.Must, "every method the handshake lists is served: called with empty params it answers -32602 (or a result), never -32601",
			kkMethodsServed, "A26.carrier.methods", "I-WIRE-2", "I-WIRE-25"),
		check("kernel/handshake/unlisted-syscall", spec.MustNot, "a syscall the handshake does not list (a Wave 2 syscall whose flag is off) is not served: -32601, or -32027 when the kernel knows it and its feature is off",
			kkUnlisted, "S2.syscalls.wave2-flagged", "S2.syscalls.available-iff-listed", "I-WIRE-21"),
		check("kernel/handshake/tools", spec.Must, "the handshake lists the conformance profile's tools (the flow-script fakes)",
			kkTools, "I-WIRE-8"),
	}
}

func kkVersions(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	got := fmt.Sprintf("wire %s kernelAbi %s eventSchema %s", hs.Wire, hs.KernelAbi, hs.EventSchema)
	want := fmt.Sprintf("wire %s kernelAbi %s eventSchema %s", manifest.WireAbiVersion, manifest.KernelAbiVersion, manifest.EventSchemaVersion)
	if got != want {
		return c.Failf(carrier.MethodHandshake, "versions", got, want)
	}
	return nil
}

func kkSyscalls(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	for _, s := range hs.Syscalls {
		ref, ok := manifest.LookupSyscall(s.Name)
		if !ok {
			return c.Failf(carrier.MethodHandshake, "syscalls", fmt.Sprintf("syscall %q", s.Name), "only syscalls of the manifest's table")
		}
		// the partition (kind) is kernel/handshake/partition's
		s.Kind = ref.Kind
		if s != ref {
			return c.Diff(carrier.MethodHandshake, "syscalls."+s.Name, ref, s)
		}
	}
	for _, s := range manifest.Syscalls() {
		if s.Feature == "" && !slices.ContainsFunc(hs.Syscalls, func(x manifest.Syscall) bool { return x.Name == s.Name }) {
			return c.Failf(carrier.MethodHandshake, "syscalls", fmt.Sprintf("no %q", s.Name), "every syscall without a feature flag")
		}
	}
	return nil
}

func kkPartition(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	for _, s := range hs.Syscalls {
		if ref, ok := manifest.LookupSyscall(s.Name); ok && s.Kind != ref.Kind {
			return c.Failf(carrier.MethodHandshake, "syscalls."+s.Name+".kind", string(s.Kind), string(ref.Kind))
		}
	}
	return nil
}

// tableOf is the handshake's syscall table as the manifest has it (unknown names dropped: the
// syscalls check names them).
func tableOf(hs carrier.Handshake) []manifest.Syscall {
	var out []manifest.Syscall
	for _, s := range hs.Syscalls {
		if ref, ok := manifest.LookupSyscall(s.Name); ok {
			out = append(out, ref)
		}
	}
	return out
}

func kkMethods(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	want := carrier.DeriveMethods(tableOf(hs))
	if serves(hs, carrier.MethodConformanceClock) || serves(hs, carrier.MethodConformanceCrash) {
		want = append(want, carrier.ConformanceMethods()...)
	}
	return c.Diff(carrier.MethodHandshake, "methods", want, hs.Methods)
}

func kkMethodsServed(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	for i, m := range hs.Methods {
		c.Progress(i, len(hs.Methods))
		if m.Name == carrier.MethodHandshake {
			continue
		}
		err := c.Store.Call(ctx, m.Name, map[string]any{}, nil)
		if ce, ok := asCall(err); ok && ce.RPC.Code == carrier.CodeMethodNotFound {
			return c.Failf(m.Name, "{}", fmt.Sprintf("error %d: %s", ce.RPC.Code, ce.RPC.Message), "served (the handshake lists it): -32602 for the missing params")
		}
		if _, ok := asCall(err); !ok && err != nil {
			return c.Failf(m.Name, "{}", err, "a JSON-RPC answer")
		}
	}
	return nil
}

func kkUnlisted(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	d, err := startExec(ctx, c, "unlisted")
	if err != nil {
		return err
	}
	args := map[string]string{"continueAsNew": `{"input":1}`, "receive": `{"topic":"t"}`, "select": `{"topics":["t"]}`}
	tried := 0
	for _, s := range manifest.Syscalls() {
		if s.Feature == "" || slices.ContainsFunc(hs.Syscalls, func(x manifest.Syscall) bool { return x.Name == s.Name }) {
			continue
		}
		tried++
		err := appendsNothing(ctx, c, d.ExecutionID, "syscall."+s.Name, func() error {
			_, _, err := d.Syscall(ctx, s.Name, []byte(args[s.Name]))
			ce, ok := asCall(err)
			if !ok || ce.RPC.Code != carrier.CodeMethodNotFound && ce.RPC.Code != carrier.CodeDisabled {
				return c.Failf("syscall."+s.Name, "a syscall the handshake does not list", show(err, "accepted"), "error -32601 (or -32027, feature off)")
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if tried == 0 {
		return c.Skip("the handshake lists every flagged syscall: none is off")
	}
	return nil
}

func kkTools(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	for _, t := range carrier.ToolIDs(carrier.ProfileTools()) {
		if !slices.Contains(hs.Tools, t) {
			return c.Failf(carrier.MethodHandshake, "tools", fmt.Sprintf("%v", hs.Tools), "every tool of the conformance profile, "+t+" included")
		}
	}
	return nil
}
