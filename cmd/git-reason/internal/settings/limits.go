package settings

import "fmt"

// The read limits of fetched histories (gitstore.ReadLimits), in bytes.
const (
	keyMaxTaskBytes = "reason.maxtaskbytes"
	keyMaxPullBytes = "reason.maxpullbytes"

	defaultMaxTaskBytes = 32 << 20
	defaultMaxPullBytes = 128 << 20
	minReadLimit        = 1 << 20 // one record may be that large
)

// resolveLimits reads reason.maxTaskBytes and reason.maxPullBytes.
func resolveLimits(str func(string) string) (task, pull int64, err error) {
	if task, err = readLimit("reason.maxTaskBytes", str(keyMaxTaskBytes), defaultMaxTaskBytes); err != nil {
		return 0, 0, err
	}
	pull, err = readLimit("reason.maxPullBytes", str(keyMaxPullBytes), defaultMaxPullBytes)
	return task, pull, err
}

// readLimit reads a limit as git reads a size (parseSize), at least
// minReadLimit.
func readLimit(name, v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	n, err := parseSize(v)
	if err != nil || n < minReadLimit {
		return 0, fmt.Errorf("git config %s is %q: give a size of at least 1m, such as %dm (git config %s %dm)",
			name, v, def>>20, name, def>>20)
	}
	return n, nil
}
