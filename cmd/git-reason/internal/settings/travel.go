package settings

import (
	"fmt"
	"strings"
)

// The values of reason.pushWithCode: what the pre-push hook does with the
// reasoning of the tasks a code push names.
const (
	PushWithCodeOn   = "true"  // push it to the same remote, never forced
	PushWithCodeWarn = "warn"  // say which tasks the remote lacks, push nothing
	PushWithCodeOff  = "false" // leave reasoning alone
)

const (
	keyPushWithCode = "reason.pushwithcode"
	keyAllowRewrite = "reason.allowrewrite"
	keyFsckReceived = "receive.fsckobjects"
)

// Travel is how reasoning rides on ordinary git pushes, and what a hosted
// repository's pre-receive hook lets through.
type Travel struct {
	// PushWithCode is reason.pushWithCode (PushWithCodeOn by default).
	PushWithCode string
	// AllowRewrite is reason.allowRewrite: the server hook lets a task
	// ref be forced or deleted.
	AllowRewrite bool
	// FsckSet: receive.fsckObjects is set, to any value, in some
	// configuration file, which hooks install --server leaves as it is.
	FsckSet bool
}

// resolveTravel reads reason.pushWithCode, reason.allowRewrite and
// whether receive.fsckObjects is set.
func resolveTravel(src source, str func(string) string) (Travel, error) {
	t := Travel{PushWithCode: PushWithCodeOn}
	switch v := strings.ToLower(strings.TrimSpace(str(keyPushWithCode))); v {
	case "", "true", "yes", "on", "1":
	case "warn":
		t.PushWithCode = PushWithCodeWarn
	case "false", "no", "off", "0":
		t.PushWithCode = PushWithCodeOff
	default:
		return t, fmt.Errorf("git config reason.pushWithCode: invalid value %q: use true, warn or false", v)
	}
	if es := src.entries(keyAllowRewrite); len(es) > 0 {
		b, ok := maybeBool(es[len(es)-1])
		if !ok {
			return t, fmt.Errorf("git config reason.allowRewrite: bad boolean %q: use true or false", es[len(es)-1].value)
		}
		t.AllowRewrite = b
	}
	t.FsckSet = len(src.entries(keyFsckReceived)) > 0
	return t, nil
}
