package fold

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Profile is the event-schema version a fold behaves as (DESIGN §4). Folding "as 1.20.0" reproduces
// what a 1.20.0 fold printed: a deploy-sim node or a legacy log can be folded as the version that
// wrote it. The zero Profile is the current schema (manifest.EventSchemaVersion).
type Profile struct {
	minor int // 0 means current
}

// The oldest and newest minors a Profile can take (schema 1.20.0 .. 1.26.0).
const (
	oldestMinor  = 20
	currentMinor = 26
)

// Current is the profile of manifest.EventSchemaVersion (1.26.0).
func Current() Profile { return Profile{minor: currentMinor} }

// ProfileFor returns the profile of an event-schema version "1.N.P" with 20 <= N <= 26. The patch
// is accepted and ignored: patches change no fold behaviour.
func ProfileFor(version string) (Profile, error) {
	v, err := manifest.ParseVersion(version)
	if err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	if v.Major != 1 || v.Minor < oldestMinor || v.Minor > currentMinor {
		return Profile{}, fmt.Errorf("profile %q: want an event-schema version from 1.%d.0 to 1.%d.0", version, oldestMinor, currentMinor)
	}
	return Profile{minor: v.Minor}, nil
}

// MustProfile is ProfileFor for constant versions in tests and tables; it panics on a bad version.
func MustProfile(version string) Profile {
	p, err := ProfileFor(version)
	if err != nil {
		panic(err)
	}
	return p
}

// Profiles lists every supported profile, oldest first.
func Profiles() []Profile {
	var out []Profile
	for m := oldestMinor; m <= currentMinor; m++ {
		out = append(out, Profile{minor: m})
	}
	return out
}

func (p Profile) m() int {
	if p.minor == 0 {
		return currentMinor
	}
	return p.minor
}

// Version returns the schema version, e.g. "1.24.0".
func (p Profile) Version() string { return fmt.Sprintf("1.%d.0", p.m()) }

func (p Profile) String() string { return p.Version() }

// AtLeast reports whether p behaves as schema version 1.minor.0 or later.
func (p Profile) AtLeast(minor int) bool { return p.m() >= minor }

// Behaviour steps, named after the version note that introduced them (spec §4).
func (p Profile) stepFailedFailsExecution() bool { return p.m() < 21 } // ADR 0105 changed it in 1.21.0
func (p Profile) eventsRehomed() bool            { return p.m() >= 22 }
func (p Profile) wave2() bool                    { return p.m() >= 23 }
func (p Profile) decisionSeq() bool              { return p.m() >= 24 }
func (p Profile) quarantine() bool               { return p.m() >= 25 }
func (p Profile) dropSettledInput() bool         { return p.m() >= 26 }
