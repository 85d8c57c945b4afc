package kernel

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
)

// mutantEnv names the Hooks mutant a re-executed test binary runs its tests under. It is read by
// the test harness only; the runtime never reads the environment.
const mutantEnv = "LOOM_CONFORM_KERNEL_MUTANT"

// applyMutantUnderTest sets the Hooks of the mutant named by mutantEnv, when the binary was
// re-executed by TestHookMutantsFailTheirTests.
func applyMutantUnderTest(t testing.TB, cfg *Config) {
	id := os.Getenv(mutantEnv)
	if id == "" {
		return
	}
	h, ok := MutantHooks(id)
	if !ok {
		t.Fatalf("%s=%q names no registered kernel-hook mutant", mutantEnv, id)
	}
	cfg.Hooks = h
}

// Every Hooks mutant proven here makes each test that must catch it fail: the test binary is run
// again with only that test selected and the mutant set in the harness, and must report the
// test failed. The same tests pass on the reference runtime in this run. Reference: DESIGN §6
// (a check is proven by the mutant it rejects).
func TestHookMutantsFailTheirTests(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("re-executed under a mutant")
	}
	const where = "reference/kernel:TestHookMutantsFailTheirTests"
	tests := map[string]string{} // check id -> test function
	for _, c := range Checks() {
		if name, ok := strings.CutPrefix(c.Where, "reference/kernel:"); ok {
			tests[c.ID] = name
		}
	}
	var built []string
	for _, m := range Mutants() {
		if _, ok := MutantHooks(m.ID); ok && m.Where == where {
			built = append(built, m.ID)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, proof.Env+"=") && !strings.HasPrefix(kv, mutantEnv+"=") {
			env = append(env, kv)
		}
	}
	run := func(test, mutant string) (string, bool) {
		cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.count=1", "-test.v", "-test.timeout=120s")
		cmd.Env = append(append([]string(nil), env...), mutantEnv+"="+mutant) // a fresh slice per parallel subtest
		out, err := cmd.CombinedOutput()
		return string(out), err != nil && strings.Contains(string(out), "--- FAIL: "+test)
	}
	mutants := proof.Registered(t, Mutants(), where, built)
	// Each catching test passes on the reference runtime, so its failure under a mutant is the
	// mutant's doing.
	passes := map[string]bool{}
	for _, m := range mutants {
		for _, check := range m.CaughtBy {
			if test, ok := tests[check]; ok && !passes[test] {
				out, failed := run(test, "")
				if failed || !strings.Contains(out, "--- PASS: "+test) {
					t.Fatalf("%s fails on the reference runtime, so it proves no mutant:\n%s", test, tail([]byte(out), 2000))
				}
				passes[test] = true
			}
		}
	}
	for _, m := range mutants {
		for _, check := range m.CaughtBy {
			test, ok := tests[check]
			if !ok {
				t.Errorf("mutant %s: check %s is not a test of this package", m.ID, check)
				continue
			}
			t.Run(m.ID[strings.LastIndex(m.ID, "/")+1:]+"/"+test, func(t *testing.T) {
				t.Parallel()
				out, failed := run(test, m.ID)
				if !failed {
					t.Fatalf("%s %v: go test -run %s under mutant %s = pass, want fail\n%s", check, m.Clauses, test, m.ID, tail([]byte(out), 2000))
				}
				proof.Rejected(t, m.ID, check, proof.Failure(check, nil, "go test -run "+test+" under "+m.ID, firstFailure([]byte(out))))
			})
		}
	}
}

// firstFailure returns the first line of a failing test's output that reports the failure.
func firstFailure(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		l := strings.TrimSpace(line)
		if strings.Contains(l, "_test.go:") {
			return l
		}
	}
	return strings.TrimSpace(tail(out, 300))
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
