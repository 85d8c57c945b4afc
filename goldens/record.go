package goldens

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Recording is one fresh run of a golden's scripts: what the golden's recorded files would hold.
type Recording struct {
	Run      *flowscript.Run
	Log      []byte // log.ndjson
	State    []byte // canonical state (state.json without its trailing newline)
	Recorded Recorded
}

// Record runs the golden's flow under its driver on the reference kernel (with opts' hooks or
// optional features) and returns what it recorded. harness is the harness version for
// recorded.json.
func Record(ctx context.Context, g *Golden, harness string, opts flowscript.RunOptions) (*Recording, error) {
	run, err := flowscript.RunDriver(ctx, g.Script, g.Driver, opts)
	if err != nil {
		return nil, fmt.Errorf("golden %s: %w", g.Name, err)
	}
	st, err := fold.CanonicalState(run.State)
	if err != nil {
		return nil, fmt.Errorf("golden %s: state: %w", g.Name, err)
	}
	rec := Recorded{
		Format: RecordedFormat, Harness: harness, KernelAbi: manifest.KernelAbiVersion,
		EventSchema: manifest.EventSchemaVersion, Profile: g.Driver.ProfileOf().Version(),
		Executions: run.Executions, Results: run.Results,
	}
	for _, w := range run.Warnings {
		rec.Warnings = append(rec.Warnings, w.Code)
	}
	return &Recording{Run: run, Log: EncodeLog(run.Log), State: st, Recorded: rec}, nil
}

// Write stores a recording in the golden's directory: log.ndjson, state.json, recorded.json. Each
// file is written whole or not at all (outfile.WriteFile), so a failure leaves the old file.
func (r *Recording) Write(dir string) error {
	rb, err := json.MarshalIndent(r.Recorded, "", "  ")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{LogFile, r.Log}, {StateFile, append(append([]byte{}, r.State...), '\n')}, {RecordedFile, append(rb, '\n')}} {
		if err := outfile.WriteFile(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
