package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/testenv"
	"github.com/loom-kernel/loom-conform/manifest"
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

// runner is the machine an action runs on in the test: the action's source (github.action_path),
// the ref it was used at (github.action_ref: empty for `uses: ./`) and RUNNER_TEMP, which a job's
// steps share (so a second use of the action in one job finds the first one's build).
type runner struct {
	source, ref, temp string
}

// actionRun is what one use of the action left: each step's outputs (by id) and log (by name),
// the exit code of the first step that failed (0 when none did), and the step summary.
type actionRun struct {
	outputs map[string]map[string]string
	logs    map[string]string
	code    int
	summary string
}

// runAction runs action.yml's shell steps as a runner does (bash -eo pipefail, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY, RUNNER_TEMP, expressions over inputs, step outputs, github.*
// and runner.*); steps that use another action are checked, not run (actions/cache misses).
func runAction(t *testing.T, a action, r runner, inputs map[string]string) actionRun {
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
	run := actionRun{outputs: map[string]map[string]string{}, logs: map[string]string{}}
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
				return run.outputs[parts[1]][parts[3]]
			case e == "runner.temp":
				return r.temp
			case e == "github.action_path":
				return r.source
			case e == "github.action_ref":
				return r.ref
			}
			t.Fatalf("action.yml: expression %q is not one this test evaluates", e)
			return ""
		})
	}
	summary := filepath.Join(tmp, "summary.md")
	path := os.Getenv("PATH")
	for i, st := range a.Runs.Steps {
		if st.Uses != "" {
			switch {
			case strings.HasPrefix(st.Uses, "actions/setup-go@"):
				if eval(st.With["go-version-file"]) != filepath.Join(r.source, "go.mod") {
					t.Errorf("the setup-go step reads %q, want the action's own go.mod", eval(st.With["go-version-file"]))
				}
			case strings.HasPrefix(st.Uses, "actions/cache@"):
				if eval(st.With["key"]) == "" || eval(st.With["path"]) != run.outputs["source"]["bin-dir"] {
					t.Errorf("the cache step caches %q under key %q, want the build directory %q under a key", eval(st.With["path"]), eval(st.With["key"]), run.outputs["source"]["bin-dir"])
				}
				run.outputs[st.ID] = map[string]string{"cache-hit": ""}
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				if eval(st.With["path"]) != in["output-dir"] {
					t.Errorf("the upload step uploads %q, want the output directory %q", eval(st.With["path"]), in["output-dir"])
				}
			default:
				t.Errorf("step %d uses %s: the test knows setup-go, cache and upload-artifact only", i, st.Uses)
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash (a composite run step must name its shell)", st.Name, st.Shell)
		}
		if st.If != "" {
			t.Fatalf("step %q: a run step with if: %q, which this test does not evaluate", st.Name, st.If)
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
		cmd.Env = append(os.Environ(), "PATH="+path, "GITHUB_OUTPUT="+ghOut, "GITHUB_PATH="+ghPath, "GITHUB_STEP_SUMMARY="+summary,
			"RUNNER_TEMP="+r.temp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "GITHUB_ACTION_PATH="+r.source)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		out, err := cmd.CombinedOutput()
		t.Logf("step %q:\n%s", st.Name, out)
		run.logs[st.Name] = string(out)
		run.outputs[st.ID] = readKV(t, ghOut)
		for _, dir := range strings.Fields(readFile(t, ghPath)) {
			path = dir + string(os.PathListSeparator) + path
		}
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				run.code, run.summary = ee.ExitCode(), readFile(t, summary)
				return run
			}
			t.Fatalf("step %q: %v", st.Name, err)
		}
	}
	for name, o := range a.Outputs {
		if eval(o.Value) == "" {
			t.Errorf("output %s (%s) is empty after the run", name, o.Value)
		}
	}
	run.summary = readFile(t, summary)
	return run
}

// readAction reads the repository's action.yml.
func readAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
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

// The repository's GitHub Action (action.yml), its steps run locally as a runner runs them, as a
// third party uses it: it builds loom-conform from its own source (github.action_path), certifies
// the Python starter bridge started by exec and writes the four reports; a second use in the same
// job reuses that build; at a release tag the build is stamped with the tag's version; a partial
// run fails the job unless the inputs accept it; a missing target is a clear error. Reference:
// issue 38 (an Action that resolves at the ref it is used at, certifying a starter bridge).
func TestActionStepsRunLocally(t *testing.T) {
	testenv.LookPath(t, "bash", "install bash to run the action's steps")
	python := testenv.LookPath(t, "python3", "install Python 3 to run the starter bridge the action certifies")
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using = %q, want composite", a.Runs.Using)
	}
	root, _ := filepath.Abs("../..")
	job := runner{source: root, temp: t.TempDir()}
	dir := filepath.Join(t.TempDir(), "reports")
	starter := python + " " + filepath.Join(root, "starters", "python", "loom_bridge.py")
	base := map[string]string{"kind": "all", "exec": starter, "output-dir": dir}
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

	run := runAction(t, a, job, base)
	if run.code != 0 || run.outputs["certify"]["verdict"] != "certified" || run.outputs["certify"]["exit-code"] != "0" || !strings.Contains(run.summary, "CERTIFIED") {
		t.Fatalf("action (Python starter, kind all) = exit %d, outputs %v, summary %q; want certified", run.code, run.outputs["certify"], run.summary)
	}
	for _, f := range []string{"report.json", "junit.xml", "report.html", "badge.svg", "certificate.txt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("action: %s: %v", f, err)
		}
	}
	if build := run.logs["Build loom-conform"]; !strings.Contains(build, "loom-conform "+manifest.HarnessVersion+"-devel (kernel ABI") {
		t.Errorf("action at a branch or ./: the build says %q, want a development build of %s", build, manifest.HarnessVersion)
	}

	partial := with(map[string]string{"kind": "eventstore", "args": "--run ^eventstore/append-conflict$", "output-dir": dir + "-partial"})
	run = runAction(t, a, job, partial)
	if run.code != 5 || run.outputs["certify"]["verdict"] != "partial" {
		t.Errorf("action (--run, not accepted) = exit %d, outputs %v; want the job to fail with exit 5", run.code, run.outputs["certify"])
	}
	if build := run.logs["Build loom-conform"]; !strings.Contains(build, "using the cached build") {
		t.Errorf("action, second use in the job: the build step says %q, want the first use's build reused", build)
	}
	partial["accept"] = "partial"
	if run := runAction(t, a, job, partial); run.code != 0 || run.outputs["certify"]["verdict"] != "partial" {
		t.Errorf("action (--run, accept partial) = exit %d, outputs %v; want exit 0 and verdict partial", run.code, run.outputs["certify"])
	}
	if run := runAction(t, a, job, with(map[string]string{"exec": "", "output-dir": dir + "-none"})); run.code != 2 {
		t.Errorf("action (no target) = exit %d, want 2", run.code)
	}

	// Used at a release tag, the build is stamped with it (and cached apart from the devel build).
	tagged := runner{source: root, ref: "v9.8.7", temp: job.temp}
	run = runAction(t, a, tagged, with(map[string]string{"kind": "eventstore", "args": "--run ^eventstore/append-conflict$", "accept": "partial", "output-dir": dir + "-tagged"}))
	if build := run.logs["Build loom-conform"]; run.code != 0 || !strings.Contains(build, "loom-conform 9.8.7 (kernel ABI") {
		t.Errorf("action at v9.8.7 = exit %d, build %q; want a build stamped 9.8.7", run.code, build)
	}
}

// The README's Action example is what a third party copies: it uses this repository at a ref,
// only with inputs action.yml declares, and names exactly one target. Reference: issue 38 (the
// documented Action resolves, with inputs that exist).
func TestReadmeActionExample(t *testing.T) {
	a := readAction(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "### Certify in CI with the GitHub Action"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal("README.md has no section \"Certify in CI with the GitHub Action\"")
	}
	start := strings.Index(section, "```yaml\n")
	end := strings.Index(section[start+1:], "```\n")
	if start < 0 || end < 0 {
		t.Fatal("README.md: the Action section has no yaml example")
	}
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(section[start+len("```yaml\n"):start+1+end]), &workflow); err != nil {
		t.Fatalf("README.md Action example: %v", err)
	}
	found := false
	for _, job := range workflow.Jobs {
		for _, st := range job.Steps {
			repo, ref, _ := strings.Cut(st.Uses, "@")
			if repo != "loom-kernel/loom-conform" {
				continue
			}
			found = true
			if ref == "" {
				t.Errorf("README.md Action example: uses %q, want a ref (@main, @v0.1.0)", st.Uses)
			}
			targets := 0
			for k := range st.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("README.md Action example: input %q is not declared in action.yml", k)
				}
				if k == "exec" || k == "image" || k == "url" {
					targets++
				}
			}
			if targets != 1 {
				t.Errorf("README.md Action example: %d of exec, image and url, want exactly one", targets)
			}
		}
	}
	if !found {
		t.Error("README.md Action example: no step uses loom-kernel/loom-conform@REF")
	}
}
