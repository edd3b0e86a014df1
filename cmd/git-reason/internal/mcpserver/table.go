package mcpserver

// MetaKey is the namespaced _meta key under which each tool carries its
// policy, verbatim.
const MetaKey = "git-reason/execution_policy"
