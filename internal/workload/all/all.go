// Package all imports every workload so that the command sees each one.
package all

import (
	_ "shootout/internal/workload/oltp"    // sysbench OLTP tests
	_ "shootout/internal/workload/redmine" // the issue tracker of seeds 000/002
)
