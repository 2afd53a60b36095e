package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"

	"shootout/internal/result"
)

// thisBuild names the running shootout, for run.json: shootout merge
// refuses to join cells that two builds measured, since a change of the
// driver or of a workload changes figures without changing conditions.
func thisBuild() *result.Build {
	b := &result.Build{Version: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Version = bi.Main.Version
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				b.Version += " " + s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				b.Version += "+modified"
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				b.Executable = hex.EncodeToString(h.Sum(nil))
			}
			f.Close()
		}
	}
	return b
}
