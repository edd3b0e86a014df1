package transport

import "strings"

// The stances an advisor may take, as the consultation record spells them.
const (
	StanceEndorse                 = "endorse"
	StanceEndorseWithChanges      = "endorse_with_changes"
	StanceOppose                  = "oppose"
	StanceInsufficientInformation = "insufficient_information"
)

// Stances lists the valid stances in the order the prompt offers them.
func Stances() []string {
	return []string{StanceEndorse, StanceEndorseWithChanges, StanceOppose, StanceInsufficientInformation}
}

// systemText is the role given to HTTP responders that take one apart from
// the prompt. The prompt repeats what matters, so responders without a
// system role (exec, peer) lose nothing.
const systemText = "You are an independent reviewer of engineering decisions. " +
	"You see only what the user message gives you. Answer with the single JSON object it asks for."

// Prompt renders req as the text every adapter sends: the question, the
// subject, materiality and reversibility, the evidence summaries, the
// capabilities needed, the material as given, and the instruction to answer only with a JSON object
// {"stance", "summary", "recommendations", "risks", "confidence"} that
// [Normalise] reads. The same request always gives the same prompt, so
// advisors asked concurrently are asked the same thing and see nothing of
// each other.
func Prompt(req Request) string {
	head, tail := Frame(req)
	return head + req.Material + tail
}

// Frame returns what [Prompt] puts before and after req.Material, so that
// a caller holding a large material can size and hash the prompt without
// building it: Prompt(req) == head + req.Material + tail.
func Frame(req Request) (head, tail string) {
	var b strings.Builder
	b.WriteString("You are asked, independently of any other reviewer, for a second opinion on an engineering decision.\n\n")
	line(&b, "Question", req.Question)
	line(&b, "Subject", req.Subject)
	line(&b, "Materiality", req.Materiality)
	line(&b, "Reversibility", req.Reversibility)
	if len(req.Evidence) > 0 {
		b.WriteString("\nEvidence (summaries):\n")
		for _, e := range req.Evidence {
			b.WriteString("- " + oneLine(e) + "\n")
		}
	}
	if len(req.Needs) > 0 {
		b.WriteString("\nThe review needs these capabilities: " + strings.Join(req.Needs, ", ") + "\n")
	}
	return b.String(), answerFormat
}

// answerFormat ends every prompt: the one JSON object [Normalise] reads.
const answerFormat = `
Answer ONLY with one JSON object, without prose before or after it and without a code fence:
{"stance": "endorse" | "endorse_with_changes" | "oppose" | "insufficient_information",
 "summary": "your judgement in a few sentences",
 "recommendations": ["a change you recommend", "..."],
 "risks": ["a risk you see", "..."],
 "confidence": a number from 0 to 1}
Use "insufficient_information" when the question and evidence do not let you judge.
`

func line(b *strings.Builder, label, value string) {
	if v := strings.TrimSpace(value); v != "" {
		b.WriteString(label + ": " + oneLine(v) + "\n")
	}
}

// oneLine keeps a field on its line so that evidence cannot pose as a new
// section of the prompt.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
