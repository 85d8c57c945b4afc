package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/loom-kernel/loom-conform/internal/testenv"
)

// Width and Height are the viewport every page is judged in.
const Width, Height = 1280, 800

// Chrome finds a Chromium: $LOOM_CONFORM_CHROME, else chromium, chromium-browser, google-chrome or
// google-chrome-stable on PATH.
func Chrome() (string, error) {
	if p := os.Getenv("LOOM_CONFORM_CHROME"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (chromium, chromium-browser, google-chrome) and LOOM_CONFORM_CHROME is not set")
}

// Require returns the browser's path. Without one the test fails under CI=true (CI must run it) and
// is skipped elsewhere, saying how to enable it (internal/testenv).
func Require(t testing.TB) string {
	t.Helper()
	p, err := Chrome()
	if err != nil {
		testenv.Missing(t, err.Error()+": install Chromium (apt-get install chromium; .ci/run does) or set LOOM_CONFORM_CHROME")
	}
	return p
}

// Browser is one headless Chromium.
type Browser struct {
	ctx context.Context
}

// Start starts Chromium (headless, no sandbox: CI runs as root) for the rest of the test.
func Start(t testing.TB, path string) *Browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("headless", true), chromedp.WindowSize(Width, Height), chromedp.Flag("hide-scrollbars", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil { // start the browser now, with no deadline on its context
		cancel()
		cancelA()
		t.Fatalf("starting Chromium %s: %v", path, err)
	}
	t.Cleanup(func() { cancel(); cancelA() })
	return &Browser{ctx: ctx}
}

// Page is one report opened in its own tab.
type Page struct {
	ctx      context.Context
	file     string
	mu       sync.Mutex
	problems []string
}

// Open loads file in a new tab at Width×Height, with or without JavaScript, and waits for it.
func (b *Browser) Open(t testing.TB, file string, js bool) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	p := &Page{ctx: ctx, file: file}
	add := func(s string) {
		p.mu.Lock()
		p.problems = append(p.problems, s)
		p.mu.Unlock()
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value))
				}
				add("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			add(fmt.Sprintf("uncaught exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				add("log " + string(ev.Entry.Source) + ": " + ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				add("network request: " + u)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(Width, Height)}
	if !js {
		steps = append(steps, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}))
	}
	steps = append(steps, chromedp.Navigate("file://"+file))
	tctx, tcancel := context.WithTimeout(ctx, time.Minute)
	defer tcancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("opening %s: %v", file, err)
	}
	return p
}

// Eval evaluates a JavaScript expression in the page and decodes its JSON value into out.
func (p *Page) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
	if err != nil {
		t.Fatalf("%s: evaluating %.80q: %v", p.file, expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", p.file, raw, err)
		}
	}
}

// Screenshot captures the viewport as PNG.
func (p *Page) Screenshot(t testing.TB) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("%s: screenshot: %v", p.file, err)
	}
	return b
}

// Problems are the console errors, uncaught exceptions, error log entries and network requests
// seen so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}
