package manifest

// WireAbiVersion is the version of the JSON-RPC projection of the syscall ABI (ADR 0026): the
// spec's WIRE_ABI_VERSION, pinned at 1.0.0 by §4's 1.24.0 note. The harness never moves it on its
// own: the methods and arguments docs/wire.md defines where ADR 0026 is silent are this version's
// projection (I-WIRE-23).
const WireAbiVersion = "1.0.0"

// WireMethod is one method of the wire ABI.
type WireMethod struct {
	Method  string      `json:"method"`
	Syscall string      `json:"syscall"`
	Kind    SyscallKind `json:"kind"`
	Feature string      `json:"feature,omitempty"`
}

// WireMethods derives the wire method table from Syscalls (ADR 0026 A2): one method per syscall,
// "syscall.<name>", keeping its unary/channel partition and feature flag. It is never a hand list,
// so adding a syscall adds its wire method.
func WireMethods() []WireMethod {
	sys := Syscalls()
	out := make([]WireMethod, 0, len(sys))
	for _, s := range sys {
		out = append(out, WireMethod{Method: "syscall." + s.Name, Syscall: s.Name, Kind: s.Kind, Feature: s.Feature})
	}
	return out
}

// CarrierMethods are the execution-level methods of the wire carrier (ADR 0026: start, resume,
// getState, cancel). They drive executions; they are not syscalls.
func CarrierMethods() []string {
	return []string{"execution.start", "execution.resume", "execution.getState", "execution.cancel"}
}
