package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	"github.com/loom-kernel/loom-conform/internal/cputime"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Workload is one row of the decoder table: one pass over a log.
type Workload struct {
	Name   string
	Metric string                                               // the benchmark metric's name, unique among the rows
	Run    func(log []byte, file string) (time.Duration, error) // returns the CPU time it used
}

// envelopeAny decodes payload and metadata to any, as the baseline decoders did.
type envelopeAny struct {
	ID          string `json:"id"`
	WorkflowID  string `json:"workflowId"`
	ExecutionID string `json:"executionId"`
	EventType   string `json:"eventType"`
	Sequence    int64  `json:"sequence"`
	Timestamp   int64  `json:"timestamp"`
	Payload     any    `json:"payload"`
	Metadata    any    `json:"metadata"`
}

// eachLine calls fn for each NDJSON line of log.
func eachLine(log []byte, fn func([]byte) error) error {
	for len(log) > 0 {
		i := bytes.IndexByte(log, '\n')
		if i < 0 {
			i = len(log)
		}
		if line := log[:i]; len(bytes.TrimSpace(line)) > 0 {
			if err := fn(line); err != nil {
				return err
			}
		}
		log = log[min(i+1, len(log)):]
	}
	return nil
}

func inProcess(f func([]byte) error) func([]byte, string) (time.Duration, error) {
	return func(log []byte, _ string) (time.Duration, error) {
		runtime.GC()
		c0 := cputime.Process()
		err := f(log)
		return cputime.Process() - c0, err
	}
}

// Workloads returns the table's rows. cli is the path of a built loom-conform binary ("" leaves
// the end-to-end row out).
func Workloads(cli string) []Workload {
	ws := []Workload{
		{"encoding/json, decode only, raw payloads", "encoding_json", inProcess(func(log []byte) error {
			return eachLine(log, func(l []byte) error { var e spi.Envelope; return json.Unmarshal(l, &e) })
		})},
		{"goccy/go-json, decode only, payloads to any", "goccy_go-json", inProcess(func(log []byte) error {
			return eachLine(log, func(l []byte) error { var e envelopeAny; return gojson.Unmarshal(l, &e) })
		})},
		{"bytedance/sonic, decode only, payloads to any", "bytedance_sonic", inProcess(func(log []byte) error {
			return eachLine(log, func(l []byte) error { var e envelopeAny; return sonic.Unmarshal(l, &e) })
		})},
		{"fold.DecodeLogBytes, decode only, raw payloads", "fold.DecodeLogBytes", inProcess(func(log []byte) error {
			_, err := fold.DecodeLogBytes(log)
			return err
		})},
		{"fold.FoldReader in process (decode + fold)", "fold.FoldReader", inProcess(func(log []byte) error {
			_, err := fold.FoldReader(fold.Current(), nil, bytes.NewReader(log), fold.DecodeOptions{})
			return err
		})},
		{"fold.FoldReader + AppendState in process", "fold.FoldReader+AppendState", inProcess(func(log []byte) error {
			st, err := fold.FoldReader(fold.Current(), nil, bytes.NewReader(log), fold.DecodeOptions{})
			if err == nil {
				_, err = fold.AppendState(nil, st)
			}
			return err
		})},
	}
	if cli != "" {
		ws = append(ws,
			Workload{"`GOGC=100 loom-conform fold LOG > out` end to end, the collector at its default pace (child CPU)", "loom-conform-GOGC100", func(_ []byte, file string) (time.Duration, error) {
				return RunFold(cli, file, os.DevNull, "GOGC=100")
			}},
			Workload{"`loom-conform fold LOG > out` end to end (child CPU)", "loom-conform", func(_ []byte, file string) (time.Duration, error) {
				return RunFold(cli, file, os.DevNull)
			}})
	}
	return ws
}

// RunFold runs `cli fold file > out`, with env added to this process's environment, and returns
// the child's CPU time.
func RunFold(cli, file, out string, env ...string) (time.Duration, error) {
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer o.Close()
	cmd := exec.Command(cli, "fold", file)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = o
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s fold %s: %v: %s", cli, file, err, stderr.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// StartCPU is the child CPU time of `cli version`, the fastest of rounds: what every command
// line run pays to start the process (the runtime and the harness's package initialisation)
// before it reads a byte.
func StartCPU(cli string, rounds int) (time.Duration, error) {
	best := time.Duration(1 << 62)
	for range rounds {
		cmd := exec.Command(cli, "version")
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("%s version: %v: %s", cli, err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		best = min(best, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
	}
	return best, nil
}

// MaxRSS runs `cli fold file > /dev/null`, with env added to this process's environment, and
// returns the child's peak resident set in bytes and its CPU time.
func MaxRSS(cli, file string, env ...string) (int64, time.Duration, error) {
	cmd := exec.Command(cli, "fold", file)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s fold %s: %v: %s", cli, file, err, stderr.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ru.Maxrss * 1024, time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// Row is one measured workload: MB/s per CPU second over the fastest round, and the ratio to the
// first row (encoding/json) measured in the same run.
type Row struct {
	Name      string
	MBPerCPUs float64
	VsStdlib  float64
}

// Table runs every workload over log (saved at file) for rounds interleaved rounds, rotating the
// order, and keeps each workload's fastest round.
func Table(ws []Workload, log []byte, file string, rounds int) ([]Row, error) {
	best := make([]time.Duration, len(ws))
	for i := range best {
		best[i] = 1 << 62
	}
	for r := range rounds {
		for k := range ws {
			i := (k + r) % len(ws)
			d, err := ws[i].Run(log, file)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ws[i].Name, err)
			}
			best[i] = min(best[i], d)
		}
	}
	rows := make([]Row, len(ws))
	for i, w := range ws {
		rows[i] = Row{Name: w.Name, MBPerCPUs: float64(len(log)) / 1e6 / best[i].Seconds(), VsStdlib: float64(best[0]) / float64(best[i])}
	}
	return rows, nil
}

// RowSpread is one workload over several runs of Table: MB per CPU second (min, median, max)
// and the median ratio to encoding/json.
type RowSpread struct {
	Name           string
	Lo, Med, Hi    float64
	MedianVsStdlib float64
}

// TableRuns runs Table runs times and returns each row's spread over the runs.
func TableRuns(ws []Workload, log []byte, file string, runs, rounds int) ([]RowSpread, error) {
	per := make([][]float64, len(ws))
	vs := make([][]float64, len(ws))
	for range runs {
		rows, err := Table(ws, log, file, rounds)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			per[i] = append(per[i], r.MBPerCPUs)
			vs[i] = append(vs[i], r.VsStdlib)
		}
	}
	out := make([]RowSpread, len(ws))
	for i, w := range ws {
		lo, med, hi := Spread(per[i])
		_, mv, _ := Spread(vs[i])
		out[i] = RowSpread{Name: w.Name, Lo: lo, Med: med, Hi: hi, MedianVsStdlib: mv}
	}
	return out, nil
}

// Spread is the minimum, median and maximum of xs.
func Spread(xs []float64) (lo, med, hi float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[0], s[len(s)/2], s[len(s)-1]
}
