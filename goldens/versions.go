package goldens

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// CheckRecordedVersions compares the contract versions recorded.json states with what recorded
// them could have been (I-GOLDEN-5): profile is the driver's profile exactly (a golden recorded
// at an older profile keeps it); kernelAbi is a kernel ABI version of the manifest's major no
// newer than manifest.KernelAbiVersion; eventSchema is an event-schema version the fold knows, no
// newer than manifest.EventSchemaVersion and no older than the profile the log was written at.
// The error names recorded.json's field.
func CheckRecordedVersions(rec Recorded, driverProfile string) error {
	if rec.Profile != driverProfile {
		return fmt.Errorf("field \"profile\": %q, want %q (the driver's profile)", rec.Profile, driverProfile)
	}
	abi, err := manifest.ParseVersion(rec.KernelAbi)
	if err != nil {
		return fmt.Errorf("field \"kernelAbi\": %v", err)
	}
	cur, _ := manifest.ParseVersion(manifest.KernelAbiVersion)
	if abi.Major != cur.Major || cur.Less(abi) {
		return fmt.Errorf("field \"kernelAbi\": %q, want a kernel ABI version %d.x no newer than %s (the manifest's)", rec.KernelAbi, cur.Major, manifest.KernelAbiVersion)
	}
	schema, err := manifest.ParseVersion(rec.EventSchema)
	if err != nil {
		return fmt.Errorf("field \"eventSchema\": %v", err)
	}
	curSchema, _ := manifest.ParseVersion(manifest.EventSchemaVersion)
	if _, err := fold.ProfileFor(rec.EventSchema); err != nil || curSchema.Less(schema) {
		return fmt.Errorf("field \"eventSchema\": %q, want an event-schema version the fold knows no newer than %s (the manifest's)", rec.EventSchema, manifest.EventSchemaVersion)
	}
	if p, err := manifest.ParseVersion(rec.Profile); err == nil && schema.Less(manifest.Version{Major: p.Major, Minor: p.Minor}) {
		return fmt.Errorf("field \"eventSchema\": %q is older than the profile %q the log was written at", rec.EventSchema, rec.Profile)
	}
	return nil
}
