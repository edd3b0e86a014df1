package indirect

import _ "example.test/graph/netty"
