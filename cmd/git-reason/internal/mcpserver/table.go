package mcpserver

import "git-reason/schemas"

// MetaKey is the namespaced _meta key under which each tool carries its
// policy, verbatim.
const MetaKey = "git-reason/execution_policy"

// compile compiles a self-contained 2020-12 document; nothing is loaded
// from outside it.
func compile(name string, doc []byte) (*schemas.Schema, error) {
	return schemas.CompileDocument("urn:git-reason:mcp:"+name, doc)
}
