package certify_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/browsercheck"
	"github.com/loom-kernel/loom-conform/kits"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "rewrite docs/report-{certified,failed,waived}.png (make docs)")

// browserRuns certifies the memory EventStore three ways: as it is, with a store that drops
// metadata (four MUST checks fail with one cause), and that broken store with a ledger that
// excuses its failures.
func browserRuns(t *testing.T) map[string]*certify.Report {
	t.Helper()
	run := func(backend string) *certify.Report {
		rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: backend}},
			certify.Config{Kinds: []string{"eventstore"}, Seed: 1, ToolVersion: "0.1.0", Command: "loom-conform"})
		if err != nil {
			t.Fatal(err)
		}
		rep.Started = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) // screenshots stay the same between runs
		return rep
	}
	failed := run("broken:dropped-metadata")
	if failed.Verdict != certify.NotCertified {
		t.Fatalf("the metadata-dropping store is %s, want not-certified", failed.Verdict)
	}
	waived := run("broken:dropped-metadata")
	ledger := &certify.Ledger{}
	for _, c := range waived.Checks {
		if c.Verdict == kits.Fail {
			ledger.Entries = append(ledger.Entries, certify.Expectation{Check: c.ID, Reason: "metadata is not stored yet (#12)"})
		}
	}
	waived.Options.Ledger = "expected-failures.json"
	certify.Conclude(waived, ledger, waived.Started, nil)
	if waived.Verdict != certify.CertifiedWithWaivers {
		t.Fatalf("the waived run is %s, want certified-with-waivers", waived.Verdict)
	}
	return map[string]*certify.Report{"certified": run("memory"), "failed": failed, "waived": waived}
}

// The HTML report in a real browser (Chromium through chromedp) at 1280×800: the first failure is
// on screen without scrolling, the filter narrows the table, every link resolves, nothing is
// fetched, no console error, landmarks and AA contrast; without JavaScript every check is still
// listed. With -update-screenshots it rewrites docs/report-*.png (make docs).
func TestHTMLReportInBrowser(t *testing.T) {
	chrome := browsercheck.Require(t)
	reps := browserRuns(t)
	b := browsercheck.Start(t, chrome)
	dir := t.TempDir()
	root, _ := filepath.Abs("..")
	for _, name := range []string{"certified", "failed", "waived"} {
		rep := reps[name]
		var buf bytes.Buffer
		if err := certify.WriteHTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		p := b.Open(t, file, true)
		p.CheckCommon(t, root)

		var verdict string
		p.Eval(t, `document.querySelector("[data-verdict]").dataset.verdict`, &verdict)
		if verdict != string(rep.Verdict) {
			t.Errorf("%s: the page's verdict is %q, want %q", name, verdict, rep.Verdict)
		}
		failing, unknown := 0, 0
		for _, c := range rep.Checks {
			switch c.Verdict {
			case kits.Fail:
				failing++
			case kits.Unknown:
				unknown++
			}
		}
		if failing > 0 {
			var first struct {
				ID     string  `json:"id"`
				Top    float64 `json:"top"`
				Bottom float64 `json:"bottom"`
				Copy   bool    `json:"copy"`
			}
			p.Eval(t, `(() => { const f = document.querySelector("#attention .finding"); const h = f.querySelector("h3").getBoundingClientRect();
				return {id: f.id, top: h.top, bottom: h.bottom, copy: !!f.querySelector(".repro button.copy")}; })()`, &first)
			if first.ID == "" || first.Top < 0 || first.Bottom > browsercheck.Height {
				t.Errorf("%s: the first failure's heading is at %v..%v px, want inside the %d px viewport without scrolling", name, first.Top, first.Bottom, browsercheck.Height)
			}
			if !first.Copy {
				t.Errorf("%s: the first failure has no copy button beside its reproduce command", name)
			}
		}
		var filt struct {
			All, Fails, WantFails, One int
		}
		p.Eval(t, `(() => {
			const f = document.getElementById("filters"), rows = [...document.querySelectorAll("#checks-table tbody tr")];
			const vis = () => rows.filter(r => !r.hidden).length, set = (n, v) => { f.elements[n].value = v; f.elements[n].dispatchEvent(new Event("input", {bubbles: true})); };
			const out = {All: vis(), WantFails: rows.filter(r => r.dataset.verdict !== "pass" && r.dataset.verdict !== "skip").length};
			set("verdict", "not-pass"); out.Fails = vis(); set("verdict", "");
			set("q", rows[rows.length - 1].querySelector("td.id").textContent.split(" ")[0]); out.One = vis(); set("q", "");
			return out; })()`, &filt)
		if filt.All != len(rep.Checks) || filt.Fails != filt.WantFails || filt.WantFails != failing+unknown || filt.One < 1 || filt.One >= filt.All {
			t.Errorf("%s: filter: %+v, want all %d rows, %d not passing, and a text search narrowing to a few", name, filt, len(rep.Checks), failing+unknown)
		}
		if *updateScreenshots {
			if err := os.WriteFile(filepath.Join(root, "docs", "report-"+name+".png"), p.Screenshot(t), 0o644); err != nil {
				t.Fatal(err)
			}
		}

		noJS := b.Open(t, file, false)
		var plain struct {
			Rows       int  `json:"rows"`
			FormHidden bool `json:"formHidden"`
			Buttons    int  `json:"buttons"`
		}
		noJS.Eval(t, `({rows: [...document.querySelectorAll("#checks-table tbody tr")].filter(r => r.getClientRects().length).length,
			formHidden: document.getElementById("filters").getClientRects().length === 0, buttons: document.querySelectorAll("button.copy").length})`, &plain)
		if plain.Rows != len(rep.Checks) || !plain.FormHidden || plain.Buttons != 0 {
			t.Errorf("%s without JavaScript: %+v, want all %d rows shown and no filter form or copy button that could not work", name, plain, len(rep.Checks))
		}
		if name == "failed" && !strings.Contains(buf.String(), "checks fail with one difference") {
			t.Errorf("failed: the four metadata failures are not grouped under their one cause")
		}
	}
}
