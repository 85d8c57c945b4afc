package certify_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/manifest"
)

var (
	update = flag.Bool("update", false, "record the contract tables and digests of the profile versions in certify/contract/profiles.json (which must have been bumped when a table changed)")
	amend  = flag.Bool("amend", false, "with -update: record a changed table under its unchanged version — only for a version no release has shipped yet, whose changelog section says what the amendment adds")
)

// recordedTable reads certify/contract/<kind>.tsv: the version its header names and its rows' text.
func recordedTable(t *testing.T, kind string) (version, text string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("contract", kind+".tsv"))
	if err != nil {
		return "", ""
	}
	head, rest, _ := strings.Cut(string(b), "\n")
	return strings.TrimPrefix(head, "# "+kind+" profile "), rest
}

// rowsOf parses a table's text into its rows by id.
func rowsOf(text string) (ids []string, rows map[string]string) {
	rows = map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		id, rest, _ := strings.Cut(line, "\t")
		ids = append(ids, id)
		rows[id] = rest
	}
	return ids, rows
}

// changes names what differs between two tables: the rows added, removed and changed.
func changes(old, now string) string {
	oldIDs, oldRows := rowsOf(old)
	nowIDs, nowRows := rowsOf(now)
	var out []string
	for _, id := range nowIDs {
		switch prev, ok := oldRows[id]; {
		case !ok:
			out = append(out, "+ "+id)
		case prev != nowRows[id]:
			out = append(out, fmt.Sprintf("~ %s\n    was: %s\n    now: %s", id, strings.ReplaceAll(prev, "\t", " | "), strings.ReplaceAll(nowRows[id], "\t", " | ")))
		}
	}
	for _, id := range oldIDs {
		if _, ok := nowRows[id]; !ok {
			out = append(out, "- "+id)
		}
	}
	if len(out) == 0 {
		return "  (the rows are the same; their order changed)"
	}
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("… and %d more", len(out)-40))
	}
	return "  " + strings.Join(out, "\n  ")
}

// Reference: I-CERT-52 — what the checks demand is versioned: each kind's table of checks (id,
// level, clauses, what it demands) and vectors is recorded with its conformance profile version,
// whose digest certify/contract/profiles.json pins and whose changes docs/contract-changelog.md
// lists. A table that changes under the same version fails here, naming the rows that changed.
func TestContractVersioned(t *testing.T) {
	log, err := os.ReadFile("../docs/contract-changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	profiles := certify.Profiles()
	for _, kind := range certify.ProfileKinds() {
		p, ok := profiles[kind]
		if !ok {
			t.Errorf("certify/contract [I-CERT-52]: certify/contract/profiles.json has no %s profile", kind)
			continue
		}
		if _, err := manifest.ParseVersion(p.Version); err != nil {
			t.Errorf("certify/contract [I-CERT-52]: %s profile: %v", kind, err)
		}
		if !strings.Contains(string(log), "\n## "+kind+" "+p.Version+"\n") {
			t.Errorf("certify/contract [I-CERT-52]: docs/contract-changelog.md has no section \"## %s %s\": say what version %s of the %s profile changed", kind, p.Version, p.Version, kind)
		}
		rows, err := certify.ContractTable(kind)
		if err != nil {
			t.Fatal(err)
		}
		now, digest := certify.TableText(rows), certify.TableDigest(rows)
		version, recorded := recordedTable(t, kind)
		if now == recorded && version == p.Version && digest == p.Digest {
			continue
		}
		if *update {
			if now != recorded && version == p.Version && !*amend {
				t.Errorf("certify/contract [I-CERT-52]: the %s table changed under version %s; bump the %s profile's version in certify/contract/profiles.json (MAJOR when the change can fail an implementation certified before) and add its section to docs/contract-changelog.md first:\n%s",
					kind, p.Version, kind, changes(recorded, now))
				continue
			}
			if now != recorded && version == p.Version {
				t.Logf("amending the unreleased %s profile %s:\n%s", kind, p.Version, changes(recorded, now))
			}
			record(t, kind, p.Version, now, digest)
			continue
		}
		switch {
		case now != recorded && version == p.Version:
			t.Errorf("certify/contract [I-CERT-52]: what the %s checks demand changed under %s profile %s:\n%s\nA change that can fail an implementation certified before needs a new version: bump the %s profile in certify/contract/profiles.json, add \"## %s <version>\" to docs/contract-changelog.md saying what changed, then run go test ./certify -run TestContractVersioned -update",
				kind, kind, p.Version, changes(recorded, now), kind, kind)
		default:
			t.Errorf("certify/contract [I-CERT-52]: the %s profile %s is not recorded (table of version %q, digest %s pinned %s): run go test ./certify -run TestContractVersioned -update",
				kind, p.Version, version, digest, p.Digest)
		}
	}
}

// record writes kind's table and pins its digest.
func record(t *testing.T, kind, version, text, digest string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("contract", kind+".tsv"), []byte("# "+kind+" profile "+version+"\n"+text), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("contract", "profiles.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Format   string                     `json:"format"`
		Profiles map[string]certify.Profile `json:"profiles"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	f.Profiles[kind] = certify.Profile{Version: version, Digest: digest}
	out, _ := json.MarshalIndent(f, "", "  ")
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded the %s profile %s (%s)", kind, version, digest)
}
