package main

// The README's screenshots of the Reasoning page, taken by headless
// Chromium over a realistic repository: a migration decision two advisors
// disagree on, the disagreement resolved, the conclusion weighing both
// answers, a validation at the commit that carries it out; and two other
// tasks in earlier phases. GIT_REASON_UPDATE_SCREENSHOTS=1 writes them to
// docs/; otherwise they go to the test's artifact directory.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"git-reason/reliability/harness"
)

// screensOverlay declares two fake advisors, reached by a local
// executable, that answer the migration question differently.
var screensOverlay = fakeCatalog("design-model", "ops-model") + "advisors:\n" +
	vendorAdvisor("design-review", `screens-advisor, endorse, "Dual writes keep the rollback one flag away", "0.8", "0"`, "design-model") +
	vendorAdvisor("ops-review", `screens-advisor, oppose, "Dual writes double the write load at peak; take a maintenance window", "0.7", "0.3"`, "ops-model")

// screensAdvisor answers with stance $1, summary $2 and confidence $3
// after sleeping $4 seconds (so that the two answers keep one order).
const screensAdvisor = `cat > /dev/null
sleep "$4"
printf '{"stance":"%s","summary":"%s","confidence":%s}\n' "$1" "$2" "$3"
`

// screensRepo is the repository the screenshots show.
func screensRepo(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t, screensOverlay, map[string]string{"screens-advisor": screensAdvisor})
	harness.WriteFile(t, filepath.Join(s.dir, "sessions.sql"), "create table sessions (id text primary key, data bytea, expires timestamptz);\n")
	s.git("add", "sessions.sql")
	s.git("commit", "-q", "-m", "sessions: the table")
	s.git("checkout", "-q", "-b", "sessions-to-postgres")

	s.reason("assess", "sessions-to-postgres", "--subject", "Move sessions from Redis to Postgres",
		"--question", "Migrate the session store online with dual writes, or stop writes for a maintenance window?",
		"--materiality", "critical", "--reversibility", "costly",
		"--evidence", "file:sessions.sql:the target table", "--evidence", "note::p99 write latency budget is 20 ms")
	s.reason("plan", "sessions-to-postgres")
	s.reason("consult", "sessions-to-postgres")
	var st struct {
		OpenDisagreements []string `json:"open_disagreements"`
	}
	s.reasonJSON(&st, "status", "sessions-to-postgres")
	if len(st.OpenDisagreements) != 1 {
		t.Fatalf("the advisors' answers opened %d disagreements, want 1", len(st.OpenDisagreements))
	}
	var log []struct{ ID, Kind string }
	s.reasonJSON(&log, "log", "sessions-to-postgres")
	var consults []string
	for _, r := range log {
		if r.Kind == "consultation" {
			consults = append(consults, r.ID)
		}
	}
	if len(consults) != 2 {
		t.Fatalf("%d consultations, want 2", len(consults))
	}
	s.reason("resolve", "sessions-to-postgres", st.OpenDisagreements[0],
		"--decision", "Dual writes behind a flag, off-peak only; cut over after a week of parity checks",
		"--evidence", "note::load test: dual writes add 6 ms p99 off-peak")
	s.reason("conclude", "sessions-to-postgres", "--decision", "Migrate online: dual writes off-peak, parity checks, then cut over",
		"--rationale", "no downtime, rollback is a flag; the write load concern is met by running off-peak",
		"--weigh", consults[0]+"=adopted:rollback stays cheap",
		"--weigh", consults[1]+"=partially_adopted:off-peak only, as the load test showed")
	s.git("commit", "-q", "--allow-empty", "-m", "sessions: dual writes behind a flag", "-m", "Reason-Task: sessions-to-postgres")
	s.reason("validate", "sessions-to-postgres", "--run", "true")

	s.reason("assess", "cache-ttl", "--subject", "Session cache TTL", "--question", "Keep a 10-minute TTL in front of Postgres?",
		"--materiality", "minor", "--reversibility", "reversible")
	s.reason("assess", "retry-policy", "--subject", "Retries on the payments client", "--question", "Retry on timeout, or fail fast?",
		"--materiality", "material", "--reversibility", "reversible", "--evidence", "note::two incidents last month")
	s.reason("--profile", "ci", "plan", "retry-policy")
	s.reason("close", "cache-ttl", "--outcome", "abandoned", "--reason", "Postgres answers session reads within budget without a cache")
	return s
}

func TestWebScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it starts Chromium")
	}
	t.Parallel()
	s := screensRepo(t)
	start, base := startWeb(t, s)
	b := startBrowser(t)
	shots := map[string][]byte{}
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		b.must(err)
		shots[name] = png
	}
	want := func(page string, wants ...string) {
		t.Helper()
		got := b.text("main")
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s does not show %q:\n%s", page, w, got)
			}
		}
		b.inert(page)
	}

	b.must(chromedp.Do(b.ctx, chromedp.Navigate(start), chromedp.WaitVisible("table.tasks")))
	want("the task list", "3 of 3 tasks", "Move sessions from Redis to Postgres", "validated", "planned", "closed: abandoned")
	shoot("web-tasks.png")
	// Its filters, driven through the form: open or closed, phase, then
	// actor, then text.
	b.must(chromedp.Do(b.ctx, chromedp.SetValue(`select[name="state"]`, "closed")))
	_, err := chromedp.RunResponse(b.ctx, chromedp.Click(`form.filter button`))
	b.must(err)
	want("the closed tasks", "1 of 3 tasks", "Session cache TTL", "closed: abandoned")
	b.must(chromedp.Do(b.ctx, chromedp.SetValue(`select[name="state"]`, "open"), chromedp.SetValue(`select[name="phase"]`, "validated")))
	_, err = chromedp.RunResponse(b.ctx, chromedp.Click(`form.filter button`))
	b.must(err)
	want("the list by phase", "1 of 3 tasks", "Move sessions from Redis to Postgres")
	b.must(chromedp.Do(b.ctx, chromedp.SetValue(`select[name="state"]`, ""), chromedp.SetValue(`select[name="phase"]`, ""),
		chromedp.SendKeys(`input[name="actor"]`, "nobody")))
	_, err = chromedp.RunResponse(b.ctx, chromedp.Click(`form.filter button`))
	b.must(err)
	want("the list by an unknown actor", "0 of 3 tasks", "No task matches these filters")
	b.must(chromedp.Do(b.ctx, chromedp.SetValue(`input[name="actor"]`, "Ada"), chromedp.SendKeys(`input[name="q"]`, "retries")))
	_, err = chromedp.RunResponse(b.ctx, chromedp.Click(`form.filter button`))
	b.must(err)
	want("the list by actor and text", "1 of 3 tasks", "Retries on the payments client")

	// The task page: the rendered report, the timeline with signatures.
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/task/sessions-to-postgres"), chromedp.WaitVisible("section.report h2")))
	want("the task page", "Move sessions from Redis to Postgres", "Record graph", "Timeline", "disagreement", "resolution",
		"conclusion", "validation", "Dual writes keep the rollback one flag away", "unsigned")
	heads, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.report h1, section.report h2, section.report li, section.report table").length`))
	b.must(err)
	if heads < 5 {
		t.Errorf("the report renders %d headings, list items and tables: is it still markdown in a block?", heads)
	}
	shoot("web-task.png")

	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/task/cache-ttl"), chromedp.WaitVisible("p.closed")))
	want("a closed task's page", "Closed, abandoned", "Postgres answers session reads within budget without a cache", "closure")

	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/advisors"), chromedp.WaitVisible("table.advisors")))
	want("the advisors page", "design-review", "ops-review", "repository", "trusted", "completed", "reasoning")
	shoot("web-advisors.png")
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/doctor"), chromedp.WaitVisible("section.findings")))
	want("the doctor page", "Findings", "git reason hooks install", "neutrality")
	shoot("web-doctor.png")
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/handover"), chromedp.WaitVisible("section.open")))
	want("the handover page", "Retries on the payments client", "Settled since")
	shoot("web-handover.png")
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/context?range=main..HEAD"), chromedp.WaitVisible("article.context svg.graph")))
	want("the context page", "Decision: Migrate online", "Record graph")
	shoot("web-context.png")

	// Pages of the list: 120 tasks written in bulk are the latest activity,
	// so the migration moves to the second page, one click away.
	if err := harness.BulkTasks(context.Background(), s.dir, "bulk-", 120); err != nil {
		t.Fatal(err)
	}
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/?actor=Bulk"), chromedp.WaitVisible("nav.pages")))
	want("the first page", "120 of 123 tasks, page 1 of 2", "bulk-000119")
	_, err = chromedp.RunResponse(b.ctx, chromedp.Click(`nav.pages a[rel="next"]`))
	b.must(err)
	want("the second page", "120 of 123 tasks, page 2 of 2", "bulk-000000")
	b.must(chromedp.Do(b.ctx, chromedp.Navigate(base+"/?page=2"), chromedp.WaitVisible("nav.pages")))
	want("the second page unfiltered", "123 of 123 tasks, page 2 of 2", "Move sessions from Redis to Postgres")
	b.report()

	dir := t.ArtifactDir()
	if os.Getenv("GIT_REASON_UPDATE_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "..", "docs")
	}
	for name, png := range shots {
		out := filepath.Join(dir, name)
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", out)
	}
}
