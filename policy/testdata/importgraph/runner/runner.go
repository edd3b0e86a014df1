package runner

import "os/exec"

var _ = exec.Command
