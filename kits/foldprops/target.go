package foldprops

import (
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// FoldFunc is a fold under test, with the signature of fold.Fold.
type FoldFunc func(p fold.Profile, snapshot *fold.State, events []spi.Envelope) (fold.State, error)

// NormalizeFunc reads a snapshot written by an older profile, with the signature of
// fold.NormalizeSnapshotState.
type NormalizeFunc func(s fold.State, writtenBy fold.Profile) fold.State

// Target is what the kit checks: a fold and its snapshot normaliser.
type Target struct {
	Name      string
	Fold      FoldFunc
	Normalize NormalizeFunc
}

// Reference is the reference fold of this project.
func Reference() Target {
	return Target{Name: "reference", Fold: fold.Fold, Normalize: fold.NormalizeSnapshotState}
}
