package share

import "embed"

// The names of the embedded declaration files in FS.
const (
	AdvisorsFile  = "advisors.yaml"
	ProvidersFile = "providers.yaml"
	VendorsFile   = "vendors.yaml"
	ProfilesFile  = "profiles.yaml"
	// ToolsFile declares the MCP server's tools and their execution
	// policy; it is not an advisor declaration, so it is not in Files.
	ToolsFile = "tools.yaml"
	// ContextFile holds the default context budget per transport.
	ContextFile = "context.yaml"
)

// Files lists the embedded declaration files in the order they are loaded.
var Files = []string{AdvisorsFile, ProvidersFile, VendorsFile, ProfilesFile}

// FS holds the embedded declaration files, named as in Files. It is
// read-only and identical in every build of the binary.
//
//go:embed *.yaml
var FS embed.FS
