package advisor

import (
	"fmt"
	"io/fs"
	"sync"

	"git-reason/schemas"
	"git-reason/share"
)

// contextDefaults reads share/context.yaml once: the default context budget
// by transport. The file is embedded and checked by a test, so a failure
// here is a broken build.
var contextDefaults = sync.OnceValue(func() contextDoc {
	var doc contextDoc
	data, err := fs.ReadFile(share.FS, share.ContextFile)
	if err == nil {
		_, err = schemas.Decode("share/"+share.ContextFile, data, schemas.ShareContext, &doc)
	}
	if err != nil {
		panic(fmt.Sprintf("embedded %s: %v", share.ContextFile, err))
	}
	return doc
})

// contextDoc is share/context.yaml.
type contextDoc struct {
	ContextBytes  map[string]int `yaml:"context_bytes"`
	BytesPerToken int            `yaml:"bytes_per_token"`
}

// ContextBudget is how many bytes of question d takes: its context_bytes
// or context_tokens (at share/context.yaml's bytes_per_token) when
// declared, the smaller when both are, else its transport's default
// (share/context.yaml), else the smallest default.
func ContextBudget(d Declaration) int {
	doc := contextDefaults()
	declared := d.ContextBytes
	if d.ContextTokens > 0 {
		if n := d.ContextTokens * doc.BytesPerToken; declared <= 0 || n < declared {
			declared = n
		}
	}
	if declared > 0 {
		return declared
	}
	defaults := doc.ContextBytes
	if n, ok := defaults[d.Transport]; ok {
		return n
	}
	least := 0
	for _, n := range defaults {
		if least == 0 || n < least {
			least = n
		}
	}
	return least
}
