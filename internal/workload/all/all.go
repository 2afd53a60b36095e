// Package all imports every workload so that the command sees each one.
package all

import (
	_ "shootout/internal/workload/oltp" // sysbench OLTP tests
)
