package main

// The Reasoning page in a real browser: headless Chromium, driven through
// the DevTools protocol, opens every page the real binary serves and is
// watched for requests beyond loopback and console errors.

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"git-reason/reliability/harness"
)

// browserPath finds a Chromium the test can drive.
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestWebBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: starting Chromium costs more than the rest of the quick loop's web tests; TestWebPages checks the same pages over HTTP")
	}
	t.Parallel()
	s := webRepo(t)
	baseCommit := webCommits(t, s)
	start, base := startWeb(t, s)
	b := startBrowser(t)
	ctx, must, text, inert := b.ctx, b.must, b.text, b.inert
	var err error

	// The printed address: the token becomes a cookie.
	must(chromedp.Do(ctx, chromedp.Navigate(start), chromedp.WaitVisible("table.tasks")))
	list := text("main")
	// The filter form: submitted, it leads to the list filtered by what
	// the address now says (in), which shows shown.
	filter := func(in, shown string) {
		t.Helper()
		_, err := chromedp.RunResponse(ctx, chromedp.Click(`form.filter button`))
		must(err)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`location.search.includes(%q)`, in)))
		must(err)
		must(chromedp.Do(ctx, chromedp.WaitVisible(shown)))
	}
	must(chromedp.Do(ctx, chromedp.SendKeys(`input[name="q"]`, "rename")))
	filter("q=rename", "table.tasks")
	filtered := text("main")
	// The signature filter and the quarantine box: nothing here is
	// signed, and no pull held anything back.
	must(chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("table.tasks"),
		chromedp.SetValue(`select[name="sig"]`, "unsigned")))
	filter("sig=unsigned", "table.tasks")
	unsigned := text("p.count")
	must(chromedp.Do(ctx, chromedp.Click(`input[name="quarantined"]`)))
	filter("quarantined=1", "p.empty")
	if held := text("p.count"); !strings.HasPrefix(unsigned, "3 of 3 tasks") || !strings.HasPrefix(held, "0 of 3 tasks") {
		t.Errorf("unsigned: %q; unsigned and quarantined: %q", unsigned, held)
	}
	must(chromedp.Do(ctx, chromedp.Navigate(base+"/?q=rename"), chromedp.WaitVisible("table.tasks")))
	// The task pages: the graph and a record opened to its JSON.
	_, err = chromedp.RunResponse(ctx, chromedp.Click(`a[href="/task/T-2"]`))
	must(err)
	must(chromedp.Do(ctx, chromedp.WaitVisible("svg.graph")))
	must(chromedp.Do(ctx, chromedp.Navigate(base+"/task/T-1"), chromedp.WaitVisible("svg.graph .node"),
		chromedp.Click(`ol.timeline li:nth-child(3) summary`), chromedp.WaitVisible(`ol.timeline li:nth-child(3) pre.json`)))
	json := text(`ol.timeline li:nth-child(3) pre.json`)
	task := text("main")
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(err)
	for _, want := range []string{"T-1", "T-2", "validated", "assessed", "Rename the flag", "3 of 3 tasks"} {
		if !strings.Contains(list, want) {
			t.Errorf("task list does not show %q:\n%s", want, list)
		}
	}
	if !strings.Contains(filtered, "Rename the flag") || strings.Contains(filtered, "T-1") {
		t.Errorf("filtered list:\n%s", filtered)
	}
	for _, want := range []string{hostile, "validated", "cache it for a minute", "Record graph", "Timeline", "Report",
		"assessment", "plan", "conclusion", "validation"} {
		if !strings.Contains(task, want) {
			t.Errorf("task page does not show %q:\n%s", want, task)
		}
	}
	if !strings.Contains(json, `"kind": "conclusion"`) || !strings.Contains(json, "cache it for a minute") {
		t.Errorf("the opened record shows:\n%s", json)
	}
	// The hostile subject stayed text: no element came of it.
	inert("the task page")
	// A record that arrives shows without a reload: the page polls its
	// task's head and swaps in its new content (the marker set on this
	// window would not survive a reload).
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.notReloaded = true; document.querySelectorAll("ol.timeline > li").length`))
	must(err)
	s.reason("validate", "T-1", "--run", "true")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`window.notReloaded === true && document.querySelectorAll("ol.timeline > li").length === %d`, before+1)))
	must(err)

	// The handover page, reached through the navigation: open tasks with
	// their next step and open disagreement, the settled task.
	_, err = chromedp.RunResponse(ctx, chromedp.Click(`header nav a[href="/handover"]`))
	must(err)
	must(chromedp.Do(ctx, chromedp.WaitVisible("section.open article.handover")))
	handover := text("main")
	handoverShot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(err)
	for _, want := range []string{"Open (2)", "Rename the flag", "git reason plan T-2", "Queue choice",
		"git reason validate T-4 --run CMD", "the attempt contradicts it: " + hostile, "Settled since", "cache it for a minute", hostile} {
		if !strings.Contains(handover, want) {
			t.Errorf("handover page does not show %q:\n%s", want, handover)
		}
	}
	inert("the handover page")
	// Its filter form: by actor.
	must(chromedp.Do(ctx, chromedp.SendKeys(`input[name="actor"]`, "nobody")))
	_, err = chromedp.RunResponse(ctx, chromedp.Click(`form.filter button`))
	must(err)
	must(chromedp.Do(ctx, chromedp.WaitVisible("section.open p.empty")))
	if got := text("section.open"); !strings.Contains(got, "No task is open.") {
		t.Errorf("handover filtered by an unknown actor shows:\n%s", got)
	}

	// The context page: the default range first (from main, empty here),
	// then the range typed into its form, with each task's record graph.
	_, err = chromedp.RunResponse(ctx, chromedp.Click(`header nav a[href="/context"]`))
	must(err)
	must(chromedp.Do(ctx, chromedp.WaitVisible("p.range")))
	if got := text("p.range"); !strings.Contains(got, "0 commits") {
		t.Errorf("context of the default range shows:\n%s", got)
	}
	must(chromedp.Do(ctx, chromedp.SendKeys(`input[name="range"]`, baseCommit+"..HEAD")))
	_, err = chromedp.RunResponse(ctx, chromedp.Click(`form.filter button`))
	must(err)
	must(chromedp.Do(ctx, chromedp.WaitVisible("article.context svg.graph .node")))
	contextText := text("main")
	for _, want := range []string{"3 commits", "2 tasks", "Decision: cache it for a minute", "Reason-Task trailer of",
		"Record graph", "the database queue", "Trailers naming no task here (1)", "Queue <b>wiring</b>", hostile} {
		if !strings.Contains(contextText, want) {
			t.Errorf("context page does not show %q:\n%s", want, contextText)
		}
	}
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("article.context svg.graph .node").length`))
	must(err)
	if nodes < 8 {
		t.Errorf("the context page's graphs hold %d records, want the 8 of T-1 and T-4", nodes)
	}
	inert("the context page")
	contextShot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(err)

	b.report()
	// These pages hold the hostile record texts: their screenshots are for
	// looking at what the attack left (README's come from
	// TestWebScreenshots).
	for name, png := range map[string][]byte{"hostile-task.png": shot, "hostile-handover.png": handoverShot, "hostile-context.png": contextShot} {
		out := filepath.Join(t.ArtifactDir(), name)
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", out)
	}
}

// browser is headless Chromium driven for one test, and what it has seen
// go wrong: requests beyond loopback, console errors and exceptions.
type browser struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

// startBrowser starts headless Chromium for the test; it stops with it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	chrome := browserPath()
	if chrome == "" {
		harness.MissingTool(t, "no Chromium on PATH (install Debian's chromium package; .ci/run does)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	b := &browser{t: t}
	note := func(s string) { b.mu.Lock(); b.problems = append(b.problems, s); b.mu.Unlock() }
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if !loopbackURL(ev.Request.URL) {
				note("request beyond loopback: " + ev.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				note("console " + string(ev.Type))
			}
		case *runtime.EventExceptionThrown:
			note("exception: " + ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				note("console error: " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}))
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelT)
	b.ctx = ctx
	b.must(chromedp.Do(ctx))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	b.must(err)
	_, err = chromedp.Call(ctx, log.Enable, cdp.Empty{})
	b.must(err)
	_, err = chromedp.Call(ctx, runtime.Enable, cdp.Empty{})
	b.must(err)
	return b
}

func (b *browser) must(err error) {
	b.t.Helper()
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// text is the text of the first element sel matches.
func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(sel))
	b.must(err)
	return s
}

// inert checks the page in the browser holds no script (but the page's
// own), image or link to elsewhere: no record text became an element.
func (b *browser) inert(page string) {
	b.t.Helper()
	scripts, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.scripts].filter(s => s.src !== location.origin + "/static/live.js").length`))
	b.must(err)
	images, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.images.length`))
	b.must(err)
	links, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.links].filter(a => !a.href.startsWith(location.origin)).length`))
	b.must(err)
	if scripts+images+links != 0 {
		b.t.Errorf("%s holds %d scripts, %d images, %d links elsewhere", page, scripts, images, links)
	}
}

// report fails the test with every problem the browser saw.
func (b *browser) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Error(p)
	}
}

// loopbackURL reports whether u goes nowhere beyond this machine.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	if p.Scheme == "data" || p.Scheme == "about" {
		return true
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
