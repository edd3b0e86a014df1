package clock

import "time"

var _ = time.Now
