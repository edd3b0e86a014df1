package leaky

import "os"

var _ = os.Args
