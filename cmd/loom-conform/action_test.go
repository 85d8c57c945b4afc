package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// action is the part of action.yml (a composite GitHub Action) the test reads.
type action struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Uses  string            `yaml:"uses"`
			If    string            `yaml:"if"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var actionExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// runAction runs action.yml's shell steps as a runner does (bash -eo pipefail, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY, expressions over inputs and step outputs); steps that use
// another action are checked, not run. It returns the step outputs, the exit code of the first step
// that failed (0 when none did) and the step summary.
func runAction(t *testing.T, a action, inputs map[string]string) (map[string]map[string]string, int, string) {
	t.Helper()
	in := map[string]string{}
	for k, v := range a.Inputs {
		in[k] = v.Default
	}
	for k, v := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("input %q is not declared in action.yml", k)
		}
		in[k] = v
	}
	tmp := t.TempDir()
	outputs := map[string]map[string]string{}
	eval := func(s string) string {
		return actionExpr.ReplaceAllStringFunc(s, func(m string) string {
			e := actionExpr.FindStringSubmatch(m)[1]
			switch parts := strings.Split(e, "."); {
			case len(parts) == 2 && parts[0] == "inputs":
				v, ok := in[parts[1]]
				if !ok {
					t.Fatalf("action.yml uses inputs.%s, which it does not declare", parts[1])
				}
				return v
			case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
				return outputs[parts[1]][parts[3]]
			case e == "runner.temp":
				return tmp
			}
			t.Fatalf("action.yml: expression %q is not one this test evaluates", e)
			return ""
		})
	}
	summary := filepath.Join(tmp, "summary.md")
	path := os.Getenv("PATH")
	for i, st := range a.Runs.Steps {
		if st.Uses != "" {
			if !strings.HasPrefix(st.Uses, "actions/setup-go@") && !strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
				t.Errorf("step %d uses %s: the test knows setup-go and upload-artifact only", i, st.Uses)
			}
			if strings.HasPrefix(st.Uses, "actions/upload-artifact@") && eval(st.With["path"]) != in["output-dir"] {
				t.Errorf("the upload step uploads %q, want the output directory %q", eval(st.With["path"]), in["output-dir"])
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash (a composite run step must name its shell)", st.Name, st.Shell)
		}
		script := filepath.Join(tmp, "step.sh")
		if err := os.WriteFile(script, []byte(st.Run), 0o755); err != nil {
			t.Fatal(err)
		}
		ghOut, ghPath := filepath.Join(tmp, "out"), filepath.Join(tmp, "path")
		os.WriteFile(ghOut, nil, 0o644)
		os.WriteFile(ghPath, nil, 0o644)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "PATH="+path, "GITHUB_OUTPUT="+ghOut, "GITHUB_PATH="+ghPath, "GITHUB_STEP_SUMMARY="+summary, "RUNNER_TEMP="+tmp)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %q:\n%s", st.Name, out)
		outputs[st.ID] = readKV(t, ghOut)
		for _, dir := range strings.Fields(readFile(t, ghPath)) {
			path = dir + string(os.PathListSeparator) + path
		}
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return outputs, ee.ExitCode(), readFile(t, summary)
			}
			t.Fatalf("step %q: %v", st.Name, err)
		}
	}
	for name, o := range a.Outputs {
		if eval(o.Value) == "" {
			t.Errorf("output %s (%s) is empty after the run", name, o.Value)
		}
	}
	return outputs, 0, readFile(t, summary)
}

func readFile(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func readKV(t *testing.T, name string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(readFile(t, name)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			m[k] = v
		}
	}
	return m
}

// The repository's GitHub Action (action.yml), its steps run locally as a runner runs them:
// installed from this checkout, it certifies the memory store started by --exec and writes the
// four reports; a partial run fails the job unless the inputs accept it; a missing target is a
// clear error. Reference: DESIGN §7 (a composite action lets a third party certify in CI).
func TestActionStepsRunLocally(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using = %q, want composite", a.Runs.Using)
	}
	root, _ := filepath.Abs("../..")
	dir := filepath.Join(t.TempDir(), "reports")
	base := map[string]string{"version": root, "kind": "eventstore", "exec": "loom-conform serve-store --backend memory", "output-dir": dir}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	outs, code, summary := runAction(t, a, base)
	if code != 0 || outs["certify"]["verdict"] != "certified" || outs["certify"]["exit-code"] != "0" || !strings.Contains(summary, "CERTIFIED") {
		t.Fatalf("action (memory store) = exit %d, outputs %v, summary %q; want certified", code, outs["certify"], summary)
	}
	for _, f := range []string{"report.json", "junit.xml", "report.html", "badge.svg", "certificate.txt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("action: %s: %v", f, err)
		}
	}

	partial := with(map[string]string{"args": "--run ^eventstore/append-conflict$", "output-dir": dir + "-partial"})
	if outs, code, _ := runAction(t, a, partial); code != 5 || outs["certify"]["verdict"] != "partial" {
		t.Errorf("action (--run, not accepted) = exit %d, outputs %v; want the job to fail with exit 5", code, outs["certify"])
	}
	partial["accept"] = "partial"
	if outs, code, _ := runAction(t, a, partial); code != 0 || outs["certify"]["verdict"] != "partial" {
		t.Errorf("action (--run, accept partial) = exit %d, outputs %v; want exit 0 and verdict partial", code, outs["certify"])
	}
	if _, code, _ := runAction(t, a, with(map[string]string{"exec": "", "output-dir": dir + "-none"})); code != 2 {
		t.Errorf("action (no target) = exit %d, want 2", code)
	}
}
