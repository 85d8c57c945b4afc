// Package browsercheck opens the harness's HTML reports in headless Chromium (chromedp) for tests:
// it finds the browser, collects console errors, exceptions and network requests, and checks
// what every report page must hold (landmarks, links that resolve inside the page or to files of
// this repository, text contrast, nothing fetched).
//
//	path := browsercheck.Require(t) // skips outside CI when no Chromium is installed; fails under CI=true
//	b := browsercheck.Start(t, path)
//	p := b.Open(t, "/tmp/report.html", true)
//	p.CheckCommon(t, repoRoot)
//
// Only tests import it, so the loom-conform binary does not link chromedp.
package browsercheck
