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
var contextDefaults = sync.OnceValue(func() map[string]int {
	var doc struct {
		ContextBytes map[string]int `yaml:"context_bytes"`
	}
	data, err := fs.ReadFile(share.FS, share.ContextFile)
	if err == nil {
		_, err = schemas.Decode("share/"+share.ContextFile, data, schemas.ShareContext, &doc)
	}
	if err != nil {
		panic(fmt.Sprintf("embedded %s: %v", share.ContextFile, err))
	}
	return doc.ContextBytes
})

// ContextBudget is how many bytes of question d takes: its context_bytes
// when declared, else its transport's default (share/context.yaml), else
// the smallest default.
func ContextBudget(d Declaration) int {
	if d.ContextBytes > 0 {
		return d.ContextBytes
	}
	defaults := contextDefaults()
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
