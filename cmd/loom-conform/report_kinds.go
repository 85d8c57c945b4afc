package main

import (
	"bytes"
	"fmt"

	"github.com/loom-kernel/loom-conform/vectors"
)

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
