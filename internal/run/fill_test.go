package run

import (
	"os"
	"testing"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
)

// selfInstance is an embedded database's instance: its server process is
// shootout itself.
type selfInstance struct{ target.Instance }

func (selfInstance) PIDs() []int { return []int{os.Getpid()} }

// An embedded database's CPU is counted once, in the server's figures:
// the client's is the same process's.
func TestEmbeddedCPUIsNotAlsoTheClients(t *testing.T) {
	var f result.File
	fillServer(&f, metrics.Report{Measured: true, ServerCPUSeconds: 2, ServerCPUResolved: true, ClientCPUSeconds: 2}, 1000, selfInstance{})
	if cpu, ok := f.Server.CPU(); !ok || cpu != 2 || f.Client.CPUSeconds != 0 || f.Client.CPUSecondsPerOp != 0 {
		t.Fatalf("server %v s, client %v s (%v/op): the process's CPU must be in the server's column only",
			cpu, f.Client.CPUSeconds, f.Client.CPUSecondsPerOp)
	}
}
