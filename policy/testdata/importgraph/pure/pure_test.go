package pure

import (
	"os"
	"testing"
)

func TestX(t *testing.T) { _ = os.Args }
