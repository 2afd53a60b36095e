package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
)

// A data directory template is the output of one bootstrap
// (mariadb-install-db, initdb), kept so that later cells with the same
// binaries, arguments and owner copy it instead of bootstrapping again:
// the suite starts over a hundred servers, and a bootstrap costs 1-2 s
// here and ~10 s under emulation. It lives outside any run's directory so
// it outlives the run; a template that cannot be used is never an error,
// the caller bootstraps as it would have without one.

// TemplateDir holds the templates, one directory per key. Empty or
// SHOOTOUT_TEMPLATES=off turns them off.
var TemplateDir = fmt.Sprintf("/var/tmp/shootout-templates-%d", os.Geteuid())

// errOccupied is a data directory that already holds something: no
// template is copied into it, nor a bootstrap run there.
var errOccupied = errors.New("the data directory is not empty")

// templateMarker is written into a template before it is renamed into
// place, so a directory without it is one whose build was cut short.
const templateMarker = "shootout-template"

// templateKey names a bootstrap by everything its output depends on: the
// programs (path, size and mtime: an upgrade in place changes them), the
// arguments but the data directory's own path, and the files' owner.
func templateKey(programs []string, args []string, uid, gid int) string {
	h := sha256.New()
	for _, p := range programs {
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(h, "%s\x00missing\x00", p)
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, st.Size(), st.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "args\x00%s\x00owner\x00%d:%d", strings.Join(args, "\x00"), uid, gid)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// templateRoot makes the templates' directory and says whether it is
// safe to read: /var/tmp is everyone's, and a template another user
// planted would become a server's data, so only a real 0700 directory of
// ours will do.
func templateRoot() (string, error) {
	root := TemplateDir
	if root == "" || os.Getenv("SHOOTOUT_TEMPLATES") == "off" {
		return "", errors.New("templates are off")
	}
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	st, err := os.Lstat(root)
	if err != nil {
		return "", err
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || sys == nil || int(sys.Uid) != os.Geteuid() || st.Mode().Perm() != 0o700 {
		return "", fmt.Errorf("%s is not a 0700 directory owned by uid %d (remove it to use templates)", root, os.Geteuid())
	}
	return root, nil
}

// restoreTemplate copies the template of key to dataDir, which must not
// exist yet or be an empty directory, and says whether it did. When the
// copy fails dataDir is left absent, for the caller to bootstrap into;
// a dataDir that is no empty directory is errOccupied, and left alone.
func restoreTemplate(ctx context.Context, key, dataDir string) (bool, error) {
	root, err := templateRoot()
	if err != nil {
		return false, err
	}
	dir := filepath.Join(root, key)
	mark, err := os.ReadFile(filepath.Join(dir, templateMarker))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil || string(mark) != key {
		return false, fmt.Errorf("template %s has no valid marker (remove it): %v", dir, err)
	}
	// a cluster makes its nodes' directories first: an empty one is
	// replaced by the copy, whose owner and mode are the bootstrap's
	if fi, err := os.Lstat(dataDir); err == nil {
		if !fi.IsDir() {
			return false, fmt.Errorf("%w: %s is not a directory", errOccupied, dataDir)
		}
		if err := syscall.Rmdir(dataDir); err != nil {
			return false, fmt.Errorf("%w: %s: %v", errOccupied, dataDir, err)
		}
	}
	if err := copyTree(ctx, filepath.Join(dir, "data"), dataDir); err != nil {
		os.RemoveAll(dataDir)
		return false, err
	}
	return true, nil
}

// saveTemplate keeps a copy of a freshly bootstrapped dataDir as key's
// template. It is built beside its final place and renamed there, so
// readers see all of it or nothing; when another process got there first
// its template stands (they are the same bootstrap) and ours goes.
func saveTemplate(ctx context.Context, key, dataDir string) error {
	root, err := templateRoot()
	if err != nil {
		return err
	}
	final := filepath.Join(root, key)
	if _, err := os.Lstat(final); err == nil {
		if _, err := os.Stat(filepath.Join(final, templateMarker)); err == nil {
			return nil
		}
		// no build leaves this (the marker goes in before the rename, and
		// final was there before the marker was looked for): something
		// else made it; move it aside so ours can take its place
		stale, err := os.MkdirTemp(root, key+".stale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(stale)
		// onto the empty stale directory, which os.Rename refuses
		if err := syscall.Rename(final, stale); err != nil {
			return err
		}
	}
	sweepBuilds(root, key)
	tmp, err := os.MkdirTemp(root, key+".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // nothing left once renamed
	if err := copyTree(ctx, dataDir, filepath.Join(tmp, "data")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, templateMarker), []byte(key), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, e := os.Stat(filepath.Join(final, templateMarker)); e == nil {
			return nil
		}
		return err
	}
	return nil
}

// sweepBuilds removes what builds of key killed midway left: no build
// takes anywhere near an hour.
func sweepBuilds(root, key string) {
	left, _ := filepath.Glob(filepath.Join(root, key+".build-*"))
	for _, dir := range left {
		if st, err := os.Lstat(dir); err == nil && time.Since(st.ModTime()) > time.Hour {
			os.RemoveAll(dir)
		}
	}
}

// copyTree copies src to dst (absent) keeping owners, modes and times, as
// the bootstrap left them.
func copyTree(ctx context.Context, src, dst string) error {
	out, err := child.CombinedOutput(exec.CommandContext(ctx, "cp", "-a", "--", src, dst))
	if err != nil {
		return fmt.Errorf("copy %s to %s: %v: %s", src, dst, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// bootstrapOnce fills dataDir from key's template when there is one, else
// runs bootstrap and keeps its output as the template. Problems with the
// template are logged, never returned: only the bootstrap's own are.
func bootstrapOnce(ctx context.Context, opt StartOptions, what, key, dataDir string, bootstrap func() error) (fromTemplate bool, err error) {
	ok, err := restoreTemplate(ctx, key, dataDir)
	if errors.Is(err, errOccupied) {
		return false, err // a bootstrap into it would mix with what is there
	}
	if err != nil {
		logf(opt.Log, "%s: template not used (%v); bootstrapping", what, err)
	}
	if ok {
		logf(opt.Log, "%s: data directory copied from template %s", what, key)
		return true, nil
	}
	if err := bootstrap(); err != nil {
		return false, err
	}
	if err := saveTemplate(ctx, key, dataDir); err != nil {
		logf(opt.Log, "%s: template not kept: %v", what, err)
	}
	return false, nil
}

// ownerOf is the uid and gid a bootstrap running with cred gives its files.
func ownerOf(cred *syscall.Credential) (uid, gid int) {
	if cred != nil {
		return int(cred.Uid), int(cred.Gid)
	}
	return os.Geteuid(), os.Getegid()
}
