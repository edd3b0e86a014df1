package advisor

import (
	"slices"
	"strings"
)

// GatedFields are the advisor fields that make the tool run something or
// send something somewhere: from a repository overlay they take effect only
// once the user has trusted that exact file content. local is among them
// because offline mode relies on it to keep everything on this machine,
// context_bytes and context_tokens because they say how much of the
// repository is sent, peer_advisor because it says who reads it there,
// answers_peers because it lets whoever holds serve's token have a command
// run on this machine and read its answer, workdir because it says whether
// a command starts where the repository's own files can tell it what else
// to run.
var GatedFields = []string{"transport", "adapter", "base_url", "credential", "executable",
	"command", "headers", "auth_header", "auth_scheme", "local", "context_bytes", "context_tokens", "peer_advisor", "answers_peers", "workdir"}

// AttributionFields are the advisor fields that change what a consultation
// record attributes the answer to (its declared model, and the vendor and
// provider the model is looked up under): gated like GatedFields, so that
// a stranger's file cannot make a record claim a model nobody asked.
var AttributionFields = []string{"provider", "vendor", "model"}

// ReviewFields are the advisor fields that could lower the review a plan
// asks for. From an untrusted repository overlay each applies only when its
// value can only add review (see reviewRules); otherwise it is ignored
// like a gated field. A profile's mode never applies untrusted, nor does a
// new profile: a narrower mode lowers review, a wider one sends off this
// machine what offline or ci keeps on it. Every other field (description
// texts, order, the capability vocabulary, providers, vendors) applies
// without trust: none of them can take an advisor out of a plan.
var ReviewFields = []string{"capabilities", "cooldown", "timeout"}

// reviewRules say, for each of ReviewFields, whether the value an overlay
// sets can only add review compared with the value already declared.
var reviewRules = map[string]func(declared, set Declaration) bool{
	// More capabilities make an advisor eligible for more needs, never
	// for fewer; dropping one takes it out of plans that need it.
	"capabilities": func(declared, set Declaration) bool {
		for _, c := range declared.Capabilities {
			if !slices.Contains(set.Capabilities, c) {
				return false
			}
		}
		return true
	},
	// A longer cooldown keeps a failing advisor out of plans for longer.
	"cooldown": func(declared, set Declaration) bool {
		return set.CooldownOrDefault() <= declared.CooldownOrDefault()
	},
	// A shorter timeout can make every consultation of it fail.
	"timeout": func(declared, set Declaration) bool {
		return set.TimeoutOrDefault() >= declared.TimeoutOrDefault()
	},
}

// advisorKeyApplies says whether an untrusted overlay's key on a declared
// advisor applies: never for gated and attribution fields, for review
// fields only when the value can only add review.
func advisorKeyApplies(key string, declared, set Declaration) bool {
	if slices.Contains(GatedFields, key) || slices.Contains(AttributionFields, key) {
		return false
	}
	if rule, ok := reviewRules[key]; ok {
		return rule(declared, set)
	}
	return true
}

// withoutGated keeps from an untrusted document only what applies without
// trust, and says what it dropped. An advisor or profile entry whose id is
// not yet declared is dropped whole; an entry for a declared advisor or
// profile loses the keys that do not apply, so that the merge leaves those
// fields as declared.
func (l *loader) withoutGated(doc *document) []string {
	var ignored []string
	kept := doc.advisors[:0]
	advisors, declaredProfiles := positions(l.cat.Advisors), positions(l.cat.Profiles)
	for _, e := range doc.advisors {
		i, ok := advisors[e.val.ID]
		if !ok {
			ignored = append(ignored, "new advisor "+e.val.ID)
			continue
		}
		declared := l.cat.Advisors[i]
		var dropped []string
		e.keys, dropped = splitKeys(e.keys, func(k string) bool { return advisorKeyApplies(k, declared, e.val) })
		if len(dropped) > 0 {
			ignored = append(ignored, e.val.ID+": "+strings.Join(dropped, ", "))
		}
		kept = append(kept, e)
	}
	doc.advisors = kept
	profiles := doc.profiles[:0]
	for _, e := range doc.profiles {
		if _, ok := declaredProfiles[e.val.ID]; !ok {
			ignored = append(ignored, "new profile "+e.val.ID)
			continue
		}
		var dropped []string
		e.keys, dropped = splitKeys(e.keys, func(k string) bool { return k != "mode" })
		if len(dropped) > 0 {
			ignored = append(ignored, "profile "+e.val.ID+": "+strings.Join(dropped, ", "))
		}
		profiles = append(profiles, e)
	}
	doc.profiles = profiles
	return ignored
}

// splitKeys returns the keys that apply and, in file order, those that do
// not.
func splitKeys(keys []string, applies func(string) bool) (kept, dropped []string) {
	kept = keys[:0:0]
	for _, k := range keys {
		if applies(k) {
			kept = append(kept, k)
		} else {
			dropped = append(dropped, k)
		}
	}
	return kept, dropped
}
