package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// progressMeter shows on a terminal how far a read across every task has
// come, the way git shows its own long steps: "Reading tasks:  45%
// (2250/5000)" rewritten in place, then ", done." The first read of a
// clone's tasks replays every history (seconds at a year of a team's
// reasoning); a step that ends before the delay shows nothing, as git's
// delayed progress does, and the delay is git's GIT_PROGRESS_DELAY
// (seconds, 2 when unset).
type progressMeter struct {
	mu      sync.Mutex
	w       io.Writer
	delay   time.Duration
	now     func() time.Time
	what    string    // the step under way ("" when none is)
	total   int       // its tasks in all
	done    int       // the most of them told done (workers tell counts out of order)
	start   time.Time // when it began
	shown   bool      // its line is on the terminal, not yet ended
	percent int       // the percentage its line shows
}

// newProgressMeter is a meter writing to stderr when stderr is a
// terminal, and nil otherwise (a pipe or a file gets no progress).
func newProgressMeter(stderr io.Writer) *progressMeter {
	f := terminal(unfiltered(stderr))
	if f == nil {
		return nil
	}
	return &progressMeter{w: f, delay: progressDelay(os.Getenv("GIT_PROGRESS_DELAY")), now: time.Now}
}

// progressDelay is GIT_PROGRESS_DELAY's value as git reads it: whole
// seconds, 2 when unset or not a number.
func progressDelay(v string) time.Duration {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return 2 * time.Second
}

// report is gitstore.Store.OnProgress: done of total tasks are through
// the step what.
func (m *progressMeter) report(what string, done, total int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if what != m.what || total != m.total {
		// A step of its own: a read that gave up part-way and read
		// every task instead starts its count again.
		m.endLocked()
		m.what, m.total, m.start, m.percent, m.done = what, total, now, -1, 0
	}
	if done < m.done {
		return // a worker that counted before another told first
	}
	m.done = done
	if !m.shown && now.Sub(m.start) < m.delay {
		return
	}
	percent := 100
	if total > 0 {
		percent = done * 100 / total
	}
	if done < total && percent == m.percent {
		return
	}
	m.shown, m.percent = true, percent
	fmt.Fprintf(m.w, "\r%s: %3d%% (%d/%d)", what, percent, done, total)
	if done >= total {
		fmt.Fprint(m.w, ", done.\n")
		m.shown, m.what = false, ""
	}
}

// end ends a line left open (the step stopped before its last task, by
// an error or an interrupt), so that what is printed next starts a line
// of its own.
func (m *progressMeter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endLocked()
}

func (m *progressMeter) endLocked() {
	if m.shown {
		fmt.Fprintln(m.w)
	}
	m.shown, m.what = false, ""
}
