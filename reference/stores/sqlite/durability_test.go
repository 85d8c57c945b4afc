package sqlite_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

// The environment of the appending child of TestAcknowledgedAppendsSurviveKill (this test binary,
// run again: TestMain).
const crashFileEnv = "LOOM_SQLITE_CRASH_FILE"

// TestMain runs the appending child of TestAcknowledgedAppendsSurviveKill when this test binary is
// started as one, and the tests otherwise.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashFileEnv); path != "" {
		appendUntilKilled(path)
		return
	}
	os.Exit(m.Run())
}

// appendUntilKilled appends to the database at path from 8 writers until the process is killed,
// printing "acked EXECUTION SEQUENCE" once each append returned.
func appendUntilKilled(path string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	es := db.Events()
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	payload, _ := json.Marshal(strings.Repeat("p", 512))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				exec, seq := fmt.Sprintf("w%d-%d", w, n/50), int64(n%50)
				ev := spi.Envelope{ID: fmt.Sprintf("%s-%d", exec, seq), WorkflowID: "w", ExecutionID: exec, EventType: "T", Sequence: seq, Timestamp: 1, Payload: payload}
				if err := es.Append(ctx, exec, []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
					fmt.Println("append:", err)
					os.Exit(1)
				}
				mu.Lock()
				fmt.Fprintf(out, "acked %s %d\n", exec, seq)
				_ = out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// Reference: I-NET-22 — what an acknowledged write survives: the process appending is killed
// (SIGKILL) after 3 000 acknowledged appends, and every one of them is in the file opened again.
func TestAcknowledgedAppendsSurviveKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), crashFileEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]int64{} // execution → appends acknowledged
	sc := bufio.NewScanner(out)
	n := 0
	for n < 3000 && sc.Scan() {
		var exec string
		var seq int64
		if _, err := fmt.Sscanf(sc.Text(), "acked %s %d", &exec, &seq); err != nil {
			_ = cmd.Process.Kill()
			t.Fatalf("the child said %q", sc.Text())
		}
		acked[exec] = max(acked[exec], seq+1)
		n++
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n < 3000 {
		t.Fatalf("the child acknowledged %d appends before it stopped, want 3000", n)
	}
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("opening the file of the killed process: %v", err)
	}
	defer db.Close()
	missing := 0
	for exec, want := range acked {
		evs, err := db.Events().Read(context.Background(), exec)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < want; i++ {
			if i >= int64(len(evs)) || evs[i].Sequence != i {
				missing++
			}
		}
	}
	if missing > 0 {
		t.Fatalf("stores/sqlite/kill-9 [I-NET-22]: Read after kill -9 = %d of %d acknowledged appends missing, want 0", missing, n)
	}
}

// Reference: I-NET-22 — the write-ahead log stays bounded while the database is open: a
// checkpoint run while readers keep reading truncates it, and SQLite never keeps it above
// WALLimit once it starts over.
func TestWALStaysBounded(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es := db.Events()
	payload, _ := json.Marshal(strings.Repeat("p", 4<<10))
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 { // steady readers: a passive checkpoint never starts the log over beside them
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_, _ = es.Read(ctx, "x-0")
				}
			}
		}()
	}
	defer func() { close(stop); readers.Wait() }()
	// 12 MiB of payloads, and their pages: past WALLimit unless SQLite started the log over.
	for i := range 3000 {
		exec, seq := fmt.Sprintf("x-%d", i/100), int64(i%100)
		ev := spi.Envelope{ID: fmt.Sprintf("%s-%d", exec, seq), WorkflowID: "w", ExecutionID: exec, EventType: "T", Sequence: seq, Timestamp: 1, Payload: payload}
		if err := es.Append(ctx, exec, []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	grown := db.WALSize()
	after, err := db.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("a checkpoint beside 4 readers: %v", err)
	}
	if after > sqlite.WALLimit {
		t.Fatalf("stores/sqlite/wal-bounded [I-NET-22]: WALSize after a checkpoint = %d, want at most %d", after, sqlite.WALLimit)
	}
	t.Logf("the log held %d bytes after 3 000 appends beside 4 readers, %d after the checkpoint", grown, after)
}
