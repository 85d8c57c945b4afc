package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/vectors"
)

// mergeCertify merges the --report files of a sharded certify run; the merged run passes when it
// is certified.
func mergeCertify(docs [][]byte) ([]byte, bool, error) {
	var reps []*certify.Report
	for i, d := range docs {
		r, err := certify.ReadReport(d)
		if err != nil {
			return nil, false, fmt.Errorf("report %d: %v", i+1, err)
		}
		reps = append(reps, r)
	}
	m, err := certify.MergeReports(reps)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	err = certify.WriteJSON(&b, m)
	return b.Bytes(), m.Certified(), err
}

// mergeDeploysim merges the --json reports of a sharded deploysim run.
func mergeDeploysim(docs [][]byte) ([]byte, bool, error) {
	var reps []deploysim.Report
	for i, d := range docs {
		var r deploysim.Report
		if err := strictJSON(d, &r); err != nil {
			return nil, false, fmt.Errorf("report %d: %v", i+1, err)
		}
		reps = append(reps, r)
	}
	m, err := deploysim.MergeReports(reps)
	if err != nil {
		return nil, false, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), m.Failed == 0, err
}

// mergeGoldens merges the --json reports of a sharded goldens check.
func mergeGoldens(docs [][]byte) ([]byte, bool, error) {
	var reps []goldens.Report
	for i, d := range docs {
		var r goldens.Report
		if err := strictJSON(d, &r); err != nil {
			return nil, false, fmt.Errorf("report %d: %v", i+1, err)
		}
		reps = append(reps, r)
	}
	m, err := goldens.MergeReports(reps)
	if err != nil {
		return nil, false, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), m.Failed == 0, err
}

// mergeVectors merges the --report files of a sharded vectors run.
func mergeVectors(docs [][]byte) ([]byte, bool, error) {
	var reps []vectors.Report
	for i, d := range docs {
		r, err := vectors.ReadReport(d)
		if err != nil {
			return nil, false, fmt.Errorf("report %d: %v", i+1, err)
		}
		reps = append(reps, r)
	}
	m, err := vectors.MergeReports(reps)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	err = m.WriteJSON(&b)
	return b.Bytes(), m.OK(), err
}
