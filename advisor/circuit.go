package advisor

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"git-reason/advisor/transport"
	"git-reason/policy"
)

// FailureKind is the typed failure of a consultation, as adapters report
// it: the transport contract's kinds (transport.Timeout and the others),
// which the journal records.
type FailureKind = transport.FailureKind

// transientKind reports whether two failures of this kind in a row open a
// circuit. Kinds this version does not know count as transient, so a newer
// adapter's failure is never read as a success.
func transientKind(k FailureKind) bool {
	switch k {
	case transport.RateLimit, transport.Authentication, transport.Cancelled:
		return false
	}
	return true
}

// aboutAvailability reports whether a failure of this kind says anything
// of whether the advisor can be asked: cancelled (the caller gave up)
// does not, and neither do malformed and empty, an answer that came but
// did not read. What an advisor answers follows its question, whose
// material can come from a stranger's repository: crafted material that
// made advisors answer malformed opened their circuits for every task,
// and the next plan of a critical decision asked no one.
func aboutAvailability(k FailureKind) bool {
	switch k {
	case transport.Cancelled, transport.Malformed, transport.Empty:
		return false
	}
	return true
}

// UnreadableLately reports whether the last two outcomes this clone
// (origin) recorded of advisor id were answers that did not read
// (malformed or empty), and the task of the last one. Such answers open
// no circuit (aboutAvailability), so the advisor stays available and a
// plan made anew asks it again: leaving it out of one plan
// (reason.disable) is a person's choice, which advisors and doctor offer
// as a task's next step does (record's State.unreadable).
func UnreadableLately(id, origin string, outcomes []Outcome) (task string, ok bool) {
	var last []Outcome
	for _, o := range outcomes {
		if o.Advisor == id && o.Origin == origin {
			last = append(last, o)
		}
	}
	sort.SliceStable(last, func(i, j int) bool { return last[i].At.Before(last[j].At) })
	n := len(last)
	if n < 2 || !unreadableKind(last[n-1]) || !unreadableKind(last[n-2]) {
		return "", false
	}
	return last[n-1].Task, true
}

func unreadableKind(o Outcome) bool {
	return o.Status == OutcomeFailed && (o.FailureKind == transport.Malformed || o.FailureKind == transport.Empty)
}

// The statuses of an outcome.
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
)

// AuthenticationCooldown is how long an authentication failure keeps an
// advisor out: a wrong credential is not retried on every plan.
const AuthenticationCooldown = time.Hour

// Outcome is one consultation's result as this clone recorded it: the advisor,
// the origin (clone) that recorded it, completed or failed with a kind, the
// Retry-After the advisor gave in seconds (0 when none), and when it was
// recorded, and the task it was asked for ("" when the journal line names
// none). Circuits take them from this clone's Journal.
type Outcome struct {
	Advisor     string
	Origin      string
	Status      string // OutcomeCompleted or OutcomeFailed
	FailureKind FailureKind
	RetryAfterS int
	At          time.Time
	Task        string
}

// Circuit derives an advisor's circuit from the outcomes this clone
// recorded, as its Journal holds them (outcomes of other advisors or other
// origins are ignored too: a journal copied from another clone counts for
// nothing; records fetched with refs never reach it at all)
// and returns policy.StatusAvailable, StatusOpen (with the time it closes)
// or StatusRecovering, with a reason in words ("" when closed and clean).
//
// Outcomes are replayed in order of At (stable for equal times):
//
//   - completed closes the circuit and clears the count of transient
//     failures;
//   - a transient failure (timeout, unavailable) counts; the second in a
//     row opens the circuit for the declared cooldown (DefaultCooldown
//     when none);
//   - rate_limit opens it for RetryAfterS seconds when positive, never
//     longer than the cooldown (a Retry-After of 10^9 s kept the advisor
//     out for 31 years), otherwise for the cooldown;
//   - authentication opens it for AuthenticationCooldown;
//   - cancelled, malformed and empty are no outcome of the advisor's
//     availability (aboutAvailability): they neither count nor clear;
//   - while open, a failure extends the circuit to the later of its end and
//     the failure's own end (answers dispatched before it opened may still
//     arrive), and a completion changes nothing;
//   - once the cooldown has passed the circuit is half-open (recovering):
//     the next completion closes it, the next failure of any kind re-opens
//     it at once, without waiting for a second one.
func Circuit(d Declaration, origin string, outcomes []Outcome, now time.Time) (policy.Status, string, time.Time) {
	var mine []Outcome
	for _, o := range outcomes {
		if o.Advisor == d.ID && o.Origin == origin && aboutAvailability(o.FailureKind) &&
			(o.Status == OutcomeCompleted || o.Status == OutcomeFailed) {
			mine = append(mine, o)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].At.Before(mine[j].At) })

	var (
		until     time.Time // zero: closed
		why       string    // what opened it
		transient int       // transient failures in a row while closed
	)
	for _, o := range mine {
		open := !until.IsZero() && o.At.Before(until)
		recovering := !until.IsZero() && !open
		if o.Status == OutcomeCompleted {
			if !open {
				until, why, transient = time.Time{}, "", 0
			}
			continue
		}
		end, cause := openFor(d, o)
		switch {
		case open:
			if end.After(until) {
				until, why = end, cause
			}
		case recovering:
			until, why, transient = end, cause+" while recovering", 0
		case transientKind(o.FailureKind):
			transient++
			if transient >= 2 {
				until, why, transient = end, "2 transient failures in a row, the last "+string(kindOf(o)), 0
			}
		default:
			until, why, transient = end, cause, 0
		}
	}
	switch {
	case until.IsZero():
		return policy.StatusAvailable, "", time.Time{}
	case now.Before(until):
		return policy.StatusOpen, "circuit open after " + why, until
	default:
		return policy.StatusRecovering, fmt.Sprintf("circuit half-open since %s after %s; the next outcome decides",
			until.UTC().Format(time.RFC3339), why), time.Time{}
	}
}

// openFor is when a failure's circuit would close, and the failure in words.
func openFor(d Declaration, o Outcome) (time.Time, string) {
	switch o.FailureKind {
	case transport.Authentication:
		return o.At.Add(AuthenticationCooldown), "an authentication failure"
	case transport.RateLimit:
		if wait := time.Duration(o.RetryAfterS) * time.Second; o.RetryAfterS > 0 && wait < d.CooldownOrDefault() {
			return o.At.Add(wait), fmt.Sprintf("a rate limit (retry after %ds)", o.RetryAfterS)
		}
		return o.At.Add(d.CooldownOrDefault()), "a rate limit"
	}
	return o.At.Add(d.CooldownOrDefault()), article(string(kindOf(o))) + " failure"
}

// kindOf names a failure recorded without a kind as unavailable.
func kindOf(o Outcome) FailureKind {
	if o.FailureKind == "" {
		return transport.Unavailable
	}
	return o.FailureKind
}

// article puts "a" or "an" before a word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
