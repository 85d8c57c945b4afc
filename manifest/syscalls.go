package manifest

// KernelAbiVersion is the version of the syscall ABI (K1, spec §2).
const KernelAbiVersion = "1.3.0"

// SyscallKind partitions syscalls into request/response and streaming semantics (ADR 0026 A2).
type SyscallKind string

const (
	Unary   SyscallKind = "unary"
	Channel SyscallKind = "channel"
)

// Syscall is one entry of the kernel's syscall table.
type Syscall struct {
	Name    string      `json:"name"`
	Since   string      `json:"since"`             // the KernelAbiVersion it arrived in
	Kind    SyscallKind `json:"kind"`              // unary, or channel (stream, ui)
	Feature string      `json:"feature,omitempty"` // kernel feature flag that enables it; "" = always available
}

// Syscalls returns the syscall table in ABI order. The eight K1 syscalls arrived in 1.0.0;
// sleep and sleepUntil (T1) and the Wave 2 trio are dated in docs/interpretations.md (I-MANIFEST-1).
func Syscalls() []Syscall {
	t := syscallTable()
	return t[:]
}

// syscallTable is the table as a value: LookupSyscall reads it without allocating (it runs on
// every syscall).
func syscallTable() [13]Syscall {
	return [...]Syscall{
		{Name: "execute", Since: "1.0.0", Kind: Unary},
		{Name: "run", Since: "1.0.0", Kind: Unary},
		{Name: "decide", Since: "1.0.0", Kind: Unary},
		{Name: "parallel", Since: "1.0.0", Kind: Unary},
		{Name: "suspend", Since: "1.0.0", Kind: Unary},
		{Name: "sleep", Since: "1.1.0", Kind: Unary},
		{Name: "sleepUntil", Since: "1.1.0", Kind: Unary},
		{Name: "emit", Since: "1.0.0", Kind: Unary},
		{Name: "stream", Since: "1.0.0", Kind: Channel},
		{Name: "ui", Since: "1.0.0", Kind: Channel},
		{Name: "continueAsNew", Since: "1.3.0", Kind: Unary, Feature: "continueAsNew"},
		{Name: "receive", Since: "1.3.0", Kind: Unary, Feature: "receive"},
		{Name: "select", Since: "1.3.0", Kind: Unary, Feature: "select"},
	}
}

// LookupSyscall returns the syscall named name.
func LookupSyscall(name string) (Syscall, bool) {
	for _, s := range syscallTable() {
		if s.Name == name {
			return s, true
		}
	}
	return Syscall{}, false
}

// AvailableSyscalls returns the syscalls a kernel offers with the given feature flags on, in table
// order: the list a wire handshake advertises beside KernelAbiVersion (spec §2). A client
// feature-detects against this list; the ABI version alone never implies a syscall, since a Wave 2
// syscall dated 1.3.0 is absent from a 1.3.0 kernel whose flag is off.
func AvailableSyscalls(enabled func(feature string) bool) []Syscall {
	var out []Syscall
	for _, s := range Syscalls() {
		if s.Feature == "" || (enabled != nil && enabled(s.Feature)) {
			out = append(out, s)
		}
	}
	return out
}
