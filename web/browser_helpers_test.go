package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The browser tests drive Debian's Chromium, headless, through the DevTools
// protocol: they see the page a person sees, scripts and styles included.

// chromiumPath is where scripts/install-chromium.sh (make chromium) puts
// the browser.
const chromiumPath = "/usr/bin/chromium"

// browserTimeout bounds one browser test, from starting Chromium to the end.
const browserTimeout = 2 * time.Minute

// waitTimeout bounds one wait for the page to show something.
const waitTimeout = 45 * time.Second

// needChromium skips a test when the browser is missing, except in CI
// (CI=true), where a missing browser is a broken setup and fails the test.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err == nil {
		return
	}
	msg := chromiumPath + " is missing: install it with `make chromium` (scripts/install-chromium.sh, " +
		"Debian's chromium package; needs root and apt-get)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// tab is one Chromium tab of a test, with what the page wrote to its console.
type tab struct {
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// newTab starts a headless Chromium for the test and opens one tab. The
// browser stops, and its profile is removed, when the test ends. Tests call
// it first, so that without a browser they skip before building a bot.
func newTab(t *testing.T) *tab {
	t.Helper()
	needChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in containers, where the sandbox cannot start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// No traffic but the test's own: no updates, sync, QUIC probes or field trials.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1024, 768),
	)
	// chromedp may report an error from its own goroutines while the browser
	// shuts down; the test's log takes none after the test has ended.
	var ended atomic.Bool
	t.Cleanup(func() { ended.Store(true) }) // runs last: cleanups run in reverse
	logf := func(format string, args ...any) {
		if !ended.Load() {
			t.Logf("chromedp: "+format, args...)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(logf))
	t.Cleanup(cancelTab)
	require.NoError(t, chromedp.Do(tctx), "start %s", chromiumPath)

	tb := &tab{ctx: tctx}
	messages := chromedp.Console(tctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.console = append(tb.console, m)
			tb.mu.Unlock()
		}
	}()
	return tb
}

// do runs actions in the tab within waitTimeout, failing the test with
// what on error.
func (tb *tab) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...), what)
}

// pressEnter presses Enter in the focused element as a keyboard does, with
// no separate char event: SendKeys' "\n" adds one, which types a line
// break into a textarea even when the page handled the keydown.
var pressEnter = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13,
		})
		if err != nil {
			return fmt.Errorf("press Enter: %w", err)
		}
	}
	return nil
})

// eval evaluates a JavaScript expression in the page (awaiting a promise).
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "evaluate %s", expr)
	return v
}

// stopsScrolling waits until the page has not scrolled for five animation
// frames in a row.
func (tb *tab) stopsScrolling(t *testing.T) {
	t.Helper()
	eval[bool](t, tb, `new Promise((done) => {
	  let y = scrollY, still = 0;
	  const frame = () => requestAnimationFrame(() => {
	    still = scrollY === y ? still + 1 : 0;
	    y = scrollY;
	    if (still >= 5) done(true); else frame();
	  });
	  frame();
	})`)
}

// waitUntil waits until the JavaScript condition holds in the page.
func (tb *tab) waitUntil(t *testing.T, what, cond string) {
	t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(waitTimeout)))
	require.NoError(t, err, "wait until %s (%s)", what, cond)
}

// problems returns the console's errors and uncaught exceptions, less the
// ones expected says the test caused on purpose.
func (tb *tab) problems(expected func(chromedp.ConsoleMessage) bool) []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []string
	for _, m := range tb.console {
		if (m.Type == chromedp.ConsoleError || m.IsException()) && (expected == nil || !expected(m)) {
			out = append(out, m.String())
		}
	}
	return out
}

// artifactDir is where a test leaves files for people to look at:
// $ARTIFACTS_DIR when set (CI keeps it), else the test's temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		return t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755), "create %s", dir)
	return dir
}

// screenshot saves a PNG of the whole page at the given width into the
// artifact directory and returns its path. The viewport is made as tall as
// the page first, so the sticky header and composer sit where a reader
// sees them rather than over the middle of a stitched capture.
func (tb *tab) screenshot(t *testing.T, name string, width int64) string {
	t.Helper()
	height := eval[int64](t, tb, `(window.scrollTo(0, 0), document.documentElement.scrollHeight)`)
	tb.do(t, "size the viewport to the page", chromedp.EmulateViewport(width, height))
	// Let the resized page lay out and paint before it is captured.
	eval[chromedp.Void](t, tb, `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))`)
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100)) // quality 100 means PNG
	require.NoError(t, err, "screenshot %s", name)
	path := filepath.Join(artifactDir(t), name)
	require.NoError(t, os.WriteFile(path, png, 0o644), "write %s", path)
	t.Logf("screenshot: %s", path)
	return path
}

// allowDownloads makes the browser save downloads in dir, each named by its
// download id, and report their progress as events.
func (tb *tab) allowDownloads(t *testing.T, dir string) {
	t.Helper()
	events := true
	_, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events,
	})
	require.NoError(t, err, "set the download behaviour")
}

// download clicks what trigger clicks and waits for the file it downloads;
// it returns the name the page suggested and the file's content.
func (tb *tab) download(t *testing.T, dir string, trigger chromedp.Action[chromedp.Void]) (name, content string) {
	t.Helper()
	// Subscribe before the click, so no event is missed.
	begun := chromedp.BrowserEvents(tb.ctx, browser.DownloadWillBegin)
	progress := chromedp.BrowserEvents(tb.ctx, browser.DownloadProgress)
	tb.do(t, "start the download", trigger)

	var guid string
	for ev, err := range begun {
		require.NoError(t, err, "wait for the download to begin")
		guid, name = ev.GUID, ev.SuggestedFilename
		break
	}
	for ev, err := range progress {
		require.NoError(t, err, "wait for the download to finish")
		if ev.GUID != guid {
			continue
		}
		require.NotEqual(t, browser.DownloadProgressStateCanceled, ev.State, "the download of %s was cancelled", name)
		if ev.State == browser.DownloadProgressStateCompleted {
			break
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, guid))
	require.NoError(t, err, "read the downloaded %s", name)
	return name, string(data)
}

// jsValue writes v as a JavaScript literal (JSON is one).
func jsValue(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err, "encode %v for the page", v)
	return string(data)
}
