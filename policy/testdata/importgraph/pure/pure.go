package pure

import (
	"fmt"
	"strings"
)

var _ = fmt.Sprint
var _ = strings.Cut
