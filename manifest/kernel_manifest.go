package manifest

// Manifest is the machine-readable projection of the kernel's contract versions (spec §9).
type Manifest struct {
	KernelAbiVersion   string       `json:"kernelAbiVersion"`
	EventSchemaVersion string       `json:"eventSchemaVersion"`
	WireAbiVersion     string       `json:"wireAbiVersion"`
	Syscalls           []Syscall    `json:"syscalls"`
	EventTypes         []EventType  `json:"eventTypes"`
	WireMethods        []WireMethod `json:"wireMethods"`
	CarrierMethods     []string     `json:"carrierMethods"`
	Spis               []Spi        `json:"spis"`
}

// KernelManifest builds the manifest from this package's constants and tables, so it cannot drift
// from them.
func KernelManifest() Manifest {
	return Manifest{
		KernelAbiVersion:   KernelAbiVersion,
		EventSchemaVersion: EventSchemaVersion,
		WireAbiVersion:     WireAbiVersion,
		Syscalls:           Syscalls(),
		EventTypes:         EventTypes(),
		WireMethods:        WireMethods(),
		CarrierMethods:     CarrierMethods(),
		Spis:               Spis(),
	}
}
