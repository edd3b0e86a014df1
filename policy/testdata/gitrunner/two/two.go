package two

import (
	"context"
	osexec "os/exec"
)

const prog = "git"

func run(ctx context.Context) error {
	_ = osexec.Command("/bin/sh", "-c", "true") // not git: allowed
	return osexec.CommandContext(ctx, prog, "status").Run()
}
