package kernel

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Reference: spec §2 — a syscall is available iff it is in the advertised list, and clients must not
// infer one from the ABI version: at ABI 1.3.0 a Wave 2 syscall dated 1.3.0 is absent while its flag
// is off, and calling it anyway is refused.
func TestAdvertisedSyscallsMatchRuntime(t *testing.T) {
	abi, _ := manifest.ParseVersion(manifest.KernelAbiVersion)
	for name, f := range map[string]Features{"none": {}, "receive": {Receive: true}, "all": {ContinueAsNew: true, Receive: true, Select: true}} {
		h := newHarness(t, func(c *Config) { c.Features = f })
		listed := map[string]bool{}
		for _, s := range h.rt.Syscalls() {
			listed[s.Name] = true
		}
		got := map[string]bool{}
		for _, s := range manifest.Syscalls() {
			if s.Feature == "" {
				continue
			}
			sys := s.Name // each in its own execution: continueAsNew ends the flow that calls it
			h.register("F-"+sys, func(c *Context, _ json.RawMessage) (any, error) {
				got[sys] = true // continueAsNew may not return: only a refusal to run counts against it
				_, err := c.Call(sys, json.RawMessage(`{}`))
				var disabled *SyscallDisabledError
				if errors.As(err, &disabled) {
					got[sys] = false
				}
				return nil, nil
			})
			_, _ = h.rt.Start(testCtx(t), "F-"+sys, "x-"+name+"-"+sys, nil)
		}
		for _, s := range manifest.Syscalls() {
			since, _ := manifest.ParseVersion(s.Since)
			if abi.Less(since) {
				t.Fatalf("syscall %s dated %s after ABI %s", s.Name, s.Since, manifest.KernelAbiVersion)
			}
			if s.Feature == "" {
				if !listed[s.Name] {
					t.Errorf("syscalls/advertised [S2.syscalls.available-iff-listed]: Syscalls() with %s lacks %s, want every unflagged syscall", name, s.Name)
				}
				continue
			}
			if listed[s.Name] != got[s.Name] {
				t.Errorf("syscalls/advertised [S2.syscalls.available-iff-listed S2.syscalls.no-version-inference]: features %s: %s listed = %v, callable = %v, want equal (the ABI version %s alone implies nothing)",
					name, s.Name, listed[s.Name], got[s.Name], manifest.KernelAbiVersion)
			}
		}
		if name == "none" && (listed["receive"] || listed["select"] || listed["continueAsNew"]) {
			t.Errorf("syscalls/advertised [S2.syscalls.wave2-flagged]: Syscalls() with no features = %v, want no Wave 2 syscall", h.rt.Syscalls())
		}
	}
}
