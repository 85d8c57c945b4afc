package carrier

import (
	"github.com/loom-kernel/loom-conform/manifest"
)

// Method names of the carrier itself (the execution-level methods are in
// manifest.CarrierMethods; attach and complete are the driver's, I-WIRE-2; resumeAs migrates an
// execution onto another flow, I-WIRE-15).
const (
	MethodHandshake = "wire.handshake"
	MethodStart     = "execution.start"
	MethodResume    = "execution.resume"
	MethodGetState  = "execution.getState"
	MethodCancel    = "execution.cancel"
	MethodAttach    = "execution.attach"
	MethodComplete  = "execution.complete"
	MethodResumeAs  = "execution.resumeAs"
)

// Method is one method of the wire ABI: a carrier method, or the projection of a syscall.
type Method struct {
	Name    string               `json:"method"`
	Syscall string               `json:"syscall,omitempty"`
	Kind    manifest.SyscallKind `json:"kind,omitempty"`
	Feature string               `json:"feature,omitempty"`
}

// DeriveMethods builds the method table from a syscall table: the carrier methods, then one
// "syscall.<name>" per syscall with its unary/channel kind and feature flag (ADR 0026 A2). It is
// the only place methods come from: nothing lists them by hand.
func DeriveMethods(table []manifest.Syscall) []Method {
	out := []Method{{Name: MethodHandshake}}
	for _, m := range manifest.CarrierMethods() {
		out = append(out, Method{Name: m})
	}
	out = append(out, Method{Name: MethodAttach}, Method{Name: MethodComplete}, Method{Name: MethodResumeAs})
	for _, s := range table {
		out = append(out, Method{Name: "syscall." + s.Name, Syscall: s.Name, Kind: s.Kind, Feature: s.Feature})
	}
	return out
}

// Handshake is the result of wire.handshake: the versions a client checks and the syscall table it
// feature-detects against (a client never infers a syscall from the ABI version, spec §2).
type Handshake struct {
	Wire           string             `json:"wire"`
	KernelAbi      string             `json:"kernelAbi"`
	EventSchema    string             `json:"eventSchema"`
	Implementation Implementation     `json:"implementation"`
	Syscalls       []manifest.Syscall `json:"syscalls"`
	Methods        []Method           `json:"methods"`
	Tools          []string           `json:"tools"`
}

// Implementation names the kernel behind a carrier.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}
