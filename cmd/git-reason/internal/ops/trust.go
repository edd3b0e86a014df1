package ops

import (
	"fmt"

	"git-reason/record"
)

// refusal is an error the command line exits 3 on: a rule refused.
type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == record.ErrRefused }

// Refused returns an error saying which rule refused and what to do.
func Refused(format string, args ...any) error { return &refusal{msg: fmt.Sprintf(format, args...)} }
