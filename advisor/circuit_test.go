package advisor

import (
	"strings"
	"testing"
	"time"

	"git-reason/advisor/transport"
	"git-reason/policy"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at is a point on the fake clock, in minutes after t0.
func at(min float64) time.Time { return t0.Add(time.Duration(min * float64(time.Minute))) }

const me, them = "origin-me", "origin-them"

func ok(min float64) Outcome {
	return Outcome{Advisor: "alpha", Origin: me, Status: OutcomeCompleted, At: at(min)}
}

func fail(min float64, kind FailureKind) Outcome {
	return Outcome{Advisor: "alpha", Origin: me, Status: OutcomeFailed, FailureKind: kind, At: at(min)}
}

func from(origin string, o Outcome) Outcome { o.Origin = origin; return o }

func retry(o Outcome, s int) Outcome { o.RetryAfterS = s; return o }

func TestCircuitTransitions(t *testing.T) {
	plain := Declaration{ID: "alpha"}                                      // default cooldown, 10m
	short := Declaration{ID: "alpha", Cooldown: Duration(5 * time.Minute)} // declared cooldown
	cases := []struct {
		name     string
		decl     Declaration
		outcomes []Outcome
		now      float64
		want     policy.Status
		until    float64 // minutes after t0; only for open
		reason   string  // substring of the reason
	}{
		{"no outcome", plain, nil, 0, policy.StatusAvailable, 0, ""},
		{"one transient failure stays closed", plain, []Outcome{fail(1, transport.Timeout)}, 2, policy.StatusAvailable, 0, ""},
		{"two timeouts open for the default cooldown", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout)}, 3, policy.StatusOpen, 12, "2 transient failures in a row, the last timeout"},
		{"two transients open for the declared cooldown", short,
			[]Outcome{fail(1, transport.Unavailable), fail(2, transport.Unavailable)}, 3, policy.StatusOpen, 7, "transient"},
		{"malformed and empty say nothing of availability", plain,
			[]Outcome{fail(1, transport.Malformed), fail(2, transport.Empty), fail(3, transport.Malformed)}, 4, policy.StatusAvailable, 0, ""},
		{"malformed does not reset the count", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Malformed), fail(3, transport.Timeout)}, 4, policy.StatusOpen, 13, "the last timeout"},
		{"recovering then malformed stays recovering", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), fail(20, transport.Empty)}, 21, policy.StatusRecovering, 0, ""},
		{"a failure without a kind counts as transient", plain,
			[]Outcome{fail(1, ""), fail(2, "")}, 3, policy.StatusOpen, 12, "unavailable"},
		{"a success between failures resets the count", plain,
			[]Outcome{fail(1, transport.Timeout), ok(2), fail(3, transport.Timeout)}, 4, policy.StatusAvailable, 0, ""},
		{"cancelled does not reset the count", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Cancelled), fail(3, transport.Timeout)}, 4, policy.StatusOpen, 13, ""},
		{"cancelled does not count", plain,
			[]Outcome{fail(1, transport.Cancelled), fail(2, transport.Cancelled), fail(3, transport.Cancelled)}, 4, policy.StatusAvailable, 0, ""},
		{"another origin's failures are ignored", plain,
			[]Outcome{from(them, fail(1, transport.Timeout)), from(them, fail(2, transport.Timeout)), from(them, fail(3, transport.Authentication))}, 4, policy.StatusAvailable, 0, ""},
		{"another origin's failure does not complete my pair", plain,
			[]Outcome{fail(1, transport.Timeout), from(them, fail(2, transport.Timeout))}, 3, policy.StatusAvailable, 0, ""},
		{"another origin's success does not reset my count", plain,
			[]Outcome{fail(1, transport.Timeout), from(them, ok(2)), fail(3, transport.Timeout)}, 4, policy.StatusOpen, 13, ""},
		{"another advisor's outcomes are ignored", plain,
			[]Outcome{{Advisor: "bravo", Origin: me, Status: OutcomeFailed, FailureKind: transport.Timeout, At: at(1)},
				{Advisor: "bravo", Origin: me, Status: OutcomeFailed, FailureKind: transport.Timeout, At: at(2)}}, 3, policy.StatusAvailable, 0, ""},
		{"an unknown outcome status is ignored", plain,
			[]Outcome{fail(1, transport.Timeout), {Advisor: "alpha", Origin: me, Status: "pending", At: at(2)}, fail(3, transport.Timeout)}, 4, policy.StatusOpen, 13, ""},
		{"rate limit honours retry_after_s", plain,
			[]Outcome{retry(fail(1, transport.RateLimit), 90)}, 2, policy.StatusOpen, 2.5, "retry after 90s"},
		{"rate limit's retry_after past the cooldown is cut to it", short,
			[]Outcome{retry(fail(1, transport.RateLimit), 1e9)}, 2, policy.StatusOpen, 6, "rate limit"},
		{"rate limit without retry_after uses the cooldown", short,
			[]Outcome{fail(1, transport.RateLimit)}, 2, policy.StatusOpen, 6, "rate limit"},
		{"rate limit after its retry_after is recovering", plain,
			[]Outcome{retry(fail(1, transport.RateLimit), 60)}, 2, policy.StatusRecovering, 0, "rate limit"},
		{"authentication opens for an hour", short,
			[]Outcome{fail(1, transport.Authentication)}, 60, policy.StatusOpen, 61, "authentication"},
		{"authentication after the hour is recovering", short,
			[]Outcome{fail(1, transport.Authentication)}, 61, policy.StatusRecovering, 0, "authentication"},
		{"open until the cooldown ends", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout)}, 11.99, policy.StatusOpen, 12, ""},
		{"recovering when the cooldown ends", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout)}, 12, policy.StatusRecovering, 0, "half-open"},
		{"recovering long after, until an outcome", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout)}, 600, policy.StatusRecovering, 0, ""},
		{"recovering then success closes", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), ok(20)}, 21, policy.StatusAvailable, 0, ""},
		{"recovering then one transient failure re-opens at once", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), fail(20, transport.Timeout)}, 21, policy.StatusOpen, 30, "while recovering"},
		{"recovering then rate limit re-opens with its retry_after", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), retry(fail(20, transport.RateLimit), 300)}, 21, policy.StatusOpen, 25, "rate limit"},
		{"recovering then cancelled stays recovering", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), fail(20, transport.Cancelled)}, 21, policy.StatusRecovering, 0, ""},
		{"after closing, one failure does not re-open", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), ok(20), fail(21, transport.Timeout)}, 22, policy.StatusAvailable, 0, ""},
		{"a success while open changes nothing", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), ok(3)}, 4, policy.StatusOpen, 12, ""},
		{"a failure while open extends to the later end", plain,
			[]Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout), fail(5, transport.Authentication)}, 30, policy.StatusOpen, 65, "authentication"},
		{"a failure while open never shortens it", plain,
			[]Outcome{fail(1, transport.Authentication), retry(fail(2, transport.RateLimit), 10)}, 30, policy.StatusOpen, 61, "authentication"},
		{"outcomes are replayed in time order", plain,
			[]Outcome{fail(3, transport.Timeout), ok(2), fail(1, transport.Timeout)}, 4, policy.StatusAvailable, 0, ""},
		{"out-of-order failures still pair", plain,
			[]Outcome{fail(3, transport.Timeout), ok(1), fail(2, transport.Timeout)}, 4, policy.StatusOpen, 13, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, reason, until := Circuit(tc.decl, me, tc.outcomes, at(tc.now))
			if st != tc.want {
				t.Fatalf("status = %s (%s), want %s", st, reason, tc.want)
			}
			if tc.want == policy.StatusOpen {
				if !until.Equal(at(tc.until)) {
					t.Errorf("until = %s, want %s", until, at(tc.until))
				}
			} else if !until.IsZero() {
				t.Errorf("until = %s for status %s, want none", until, st)
			}
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not say %q", reason, tc.reason)
			}
			if st != policy.StatusAvailable && reason == "" {
				t.Error("no reason given")
			}
		})
	}
}

// Circuit must not reorder the caller's slice: the snapshot is pure.
func TestCircuitLeavesInputAlone(t *testing.T) {
	in := []Outcome{fail(3, transport.Timeout), fail(1, transport.Timeout)}
	Circuit(Declaration{ID: "alpha"}, me, in, at(4))
	if !in[0].At.Equal(at(3)) {
		t.Fatal("Circuit sorted its input in place")
	}
}

func TestTransientKind(t *testing.T) {
	for k, want := range map[FailureKind]bool{
		transport.Timeout: true, transport.Unavailable: true, transport.Malformed: true, transport.Empty: true,
		transport.RateLimit: false, transport.Authentication: false, transport.Cancelled: false, "novel": true,
	} {
		if transientKind(k) != want {
			t.Errorf("transientKind(%s) = %v, want %v", k, !want, want)
		}
	}
}

func TestUnreadableLately(t *testing.T) {
	onTask := func(o Outcome, task string) Outcome { o.Task = task; return o }
	cases := []struct {
		name     string
		outcomes []Outcome
		task     string
		want     bool
	}{
		{"none", nil, "", false},
		{"one malformed", []Outcome{fail(1, transport.Malformed)}, "", false},
		{"malformed then empty", []Outcome{onTask(fail(1, transport.Malformed), "T-1"), onTask(fail(2, transport.Empty), "T-2")}, "T-2", true},
		{"recorded out of order", []Outcome{onTask(fail(3, transport.Empty), "T-3"), ok(1), fail(2, transport.Malformed)}, "T-3", true},
		{"an answer since", []Outcome{fail(1, transport.Malformed), fail(2, transport.Malformed), ok(3)}, "", false},
		{"a timeout between", []Outcome{fail(1, transport.Malformed), fail(2, transport.Timeout), fail(3, transport.Malformed)}, "", false},
		{"another clone's", []Outcome{from(them, fail(1, transport.Malformed)), fail(2, transport.Malformed)}, "", false},
		{"another advisor's", []Outcome{fail(1, transport.Malformed), {Advisor: "beta", Origin: me, Status: OutcomeFailed, FailureKind: transport.Malformed, At: at(2)}}, "", false},
	}
	for _, c := range cases {
		task, got := UnreadableLately("alpha", me, c.outcomes)
		if got != c.want || task != c.task {
			t.Errorf("%s: UnreadableLately = %q, %v; want %q, %v", c.name, task, got, c.task, c.want)
		}
	}
}
