// Package all imports every workload so that the command sees each one.
package all

import (
	_ "shootout/internal/workload/dump"    // your own mysqldump and pages (seed 001)
	_ "shootout/internal/workload/kv"      // key-value reads (seed 003)
	_ "shootout/internal/workload/oltp"    // sysbench OLTP tests
	_ "shootout/internal/workload/ping"    // each server's round-trip floor
	_ "shootout/internal/workload/redmine" // the issue tracker of seeds 000/002
	_ "shootout/internal/workload/replay"  // your application, captured (shootout capture) and replayed
	_ "shootout/internal/workload/shop"    // the web shop of seed 001
)
