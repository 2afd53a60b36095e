package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func useTemplateDir(t *testing.T) string {
	t.Helper()
	old := TemplateDir
	TemplateDir = filepath.Join(t.TempDir(), "templates")
	t.Cleanup(func() { TemplateDir = old })
	t.Setenv("SHOOTOUT_TEMPLATES", "")
	return TemplateDir
}

// TestTemplateKeyFollowsProgramsArgumentsAndOwner: a template made by
// another build, with other arguments or for another owner must never be
// taken for this one.
func TestTemplateKeyFollowsProgramsArgumentsAndOwner(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "install-db")
	if err := os.WriteFile(bin, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--no-defaults", "--user=me"}
	base := templateKey([]string{bin}, args, 1, 1)
	if again := templateKey([]string{bin}, args, 1, 1); again != base {
		t.Fatalf("same bootstrap, two keys: %s %s", base, again)
	}
	for name, key := range map[string]string{
		"other argument": templateKey([]string{bin}, []string{"--no-defaults", "--user=you"}, 1, 1),
		"more arguments": templateKey([]string{bin}, append(args, "--innodb-page-size=4k"), 1, 1),
		"other owner":    templateKey([]string{bin}, args, 2, 1),
		"other program":  templateKey([]string{bin + "2"}, args, 1, 1),
	} {
		if key == base {
			t.Errorf("%s: same key %s", name, key)
		}
	}
	// an upgrade in place: same path, other binary
	if err := os.WriteFile(bin, []byte("v2, longer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if key := templateKey([]string{bin}, args, 1, 1); key == base {
		t.Errorf("rebuilt program: same key %s", key)
	}
	mtime := time.Now().Add(-time.Hour)
	sized := templateKey([]string{bin}, args, 1, 1)
	if err := os.Chtimes(bin, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if key := templateKey([]string{bin}, args, 1, 1); key == sized {
		t.Errorf("program of the same size, other mtime: same key %s", key)
	}
}

// TestTemplateIsUsedOnlyWhenComplete: the second start copies the first
// one's bootstrap (modes kept); a template without its marker (a build
// cut short) is never used.
func TestTemplateIsUsedOnlyWhenComplete(t *testing.T) {
	root := useTemplateDir(t)
	ctx := context.Background()
	work := t.TempDir()
	runs := 0
	boot := func(dir string) func() error {
		return func() error {
			runs++
			if err := os.MkdirAll(filepath.Join(dir, "mysql"), 0o700); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "mysql", "user.MAI"), []byte("tables"), 0o640)
		}
	}
	first := filepath.Join(work, "a", "data")
	os.MkdirAll(filepath.Dir(first), 0o700)
	if copied, err := bootstrapOnce(ctx, StartOptions{}, "test", "k1", first, boot(first)); err != nil || copied {
		t.Fatalf("first start: copied %v, err %v", copied, err)
	}
	second := filepath.Join(work, "b", "data")
	os.MkdirAll(filepath.Dir(second), 0o700)
	if copied, err := bootstrapOnce(ctx, StartOptions{}, "test", "k1", second, boot(second)); err != nil || !copied {
		t.Fatalf("second start: copied %v, err %v", copied, err)
	}
	if runs != 1 {
		t.Fatalf("bootstrap ran %d times, want 1", runs)
	}
	st, err := os.Stat(filepath.Join(second, "mysql", "user.MAI"))
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("copied file: %v, %v (want mode 0640)", st, err)
	}

	// a cluster's node directory made empty beforehand takes the copy
	// itself, not a data/ inside it; one that holds files is refused
	made := filepath.Join(work, "n", "data")
	os.MkdirAll(made, 0o700)
	if copied, err := bootstrapOnce(ctx, StartOptions{}, "test", "k1", made, boot(made)); err != nil || !copied {
		t.Fatalf("into an empty directory: copied %v, err %v", copied, err)
	}
	if _, err := os.Stat(filepath.Join(made, "mysql", "user.MAI")); err != nil {
		t.Fatalf("copy into an empty directory: %v", err)
	}
	full := filepath.Join(work, "f", "data")
	os.MkdirAll(full, 0o700)
	os.WriteFile(filepath.Join(full, "ibdata1"), nil, 0o600)
	ran := runs
	if copied, err := bootstrapOnce(ctx, StartOptions{}, "test", "k1", full, boot(full)); copied || !errors.Is(err, errOccupied) || runs != ran {
		t.Fatalf("into a directory with files: copied %v, err %v, bootstraps %d (want none)", copied, err, runs-ran)
	}
	if _, err := os.Stat(filepath.Join(full, "ibdata1")); err != nil {
		t.Fatalf("what the directory held: %v", err)
	}

	// a template without its marker, as a build killed before its rename
	// would be if it were in place
	half := filepath.Join(root, "k2")
	os.MkdirAll(filepath.Join(half, "data"), 0o700)
	os.WriteFile(filepath.Join(half, "data", "partial"), nil, 0o600)
	third := filepath.Join(work, "c", "data")
	os.MkdirAll(filepath.Dir(third), 0o700)
	if copied, err := bootstrapOnce(ctx, StartOptions{}, "test", "k2", third, boot(third)); err != nil || copied {
		t.Fatalf("half-built template: copied %v, err %v", copied, err)
	}
	if _, err := os.Stat(filepath.Join(third, "partial")); err == nil {
		t.Fatal("a half-built template was copied")
	}
	// and the bootstrap that followed took its place
	if _, err := os.Stat(filepath.Join(half, "data", "mysql", "user.MAI")); err != nil {
		t.Fatalf("the half-built template was not replaced: %v", err)
	}
}

// TestTemplateRefusesADirectoryNotPrivatelyOurs: /var/tmp is shared; a
// templates directory others can write to must not feed a server.
func TestTemplateRefusesADirectoryNotPrivatelyOurs(t *testing.T) {
	root := useTemplateDir(t)
	if err := os.Mkdir(root, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o777)
	if _, err := templateRoot(); err == nil || !strings.Contains(err.Error(), "0700") {
		t.Fatalf("world-writable templates directory accepted: %v", err)
	}
}

// TestTemplateConcurrentBuilds: starts racing to build the same template
// all end with a full data directory, and one complete template is left,
// with no build directories beside it.
func TestTemplateConcurrentBuilds(t *testing.T) {
	root := useTemplateDir(t)
	work := t.TempDir()
	var runs atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		dir := filepath.Join(work, string(rune('a'+i)), "data")
		os.MkdirAll(filepath.Dir(dir), 0o700)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = bootstrapOnce(context.Background(), StartOptions{}, "test", "k", dir, func() error {
				runs.Add(1)
				if err := os.MkdirAll(filepath.Join(dir, "base"), 0o700); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "base", "1"), []byte("page"), 0o600)
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("start %d: %v", i, err)
		}
		b, err := os.ReadFile(filepath.Join(work, string(rune('a'+i)), "data", "base", "1"))
		if err != nil || string(b) != "page" {
			t.Errorf("start %d: data directory incomplete: %q %v", i, b, err)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "k" {
		t.Errorf("templates directory holds %v, want only k", entries)
	}
	if mark, err := os.ReadFile(filepath.Join(root, "k", templateMarker)); err != nil || string(mark) != "k" {
		t.Errorf("template's marker: %q %v", mark, err)
	}
	t.Logf("%d of %d starts bootstrapped", runs.Load(), len(errs))
}
