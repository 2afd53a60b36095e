package main

import (
	"debug/elf"
	"encoding/binary"
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
		b.BuildID = goBuildID(exe)
	}
	return b
}

// goBuildID is the Go build ID the linker writes into the executable's
// .note.go.buildid (what `go tool buildid` prints): hashes of the
// build's inputs and of its output, so another source, dependency or
// toolchain gives another ID. Read from the note, not by hashing the
// whole 60 MB file, which cost every run a second on a loaded machine.
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	note, err := s.Data()
	if err != nil || len(note) < 12 {
		return ""
	}
	// an ELF note: name size, description size, type, name, description
	nameSize, descSize := binary.LittleEndian.Uint32(note), binary.LittleEndian.Uint32(note[4:])
	start := 12 + int(nameSize+3)&^3
	if start+int(descSize) > len(note) {
		return ""
	}
	return string(note[start : start+int(descSize)])
}
