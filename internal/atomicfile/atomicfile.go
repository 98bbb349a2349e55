package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
)

// WriteFile atomically replaces the file at path with data and gives it the
// permission bits perm. Missing parent directories are created with mode
// 0o755. On failure the temporary file is removed and any previous file at
// path is left as it was.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, true, bytesOf(data))
}

// bytesOf fills a file with data.
func bytesOf(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(data); return err }
}

// Replace replaces the file at path with data by the same rename as
// [WriteFile], so a reader sees the old content or the new, but without
// flushing anything to stable storage: after a power loss the file may be
// empty or old. It is for views of data kept durably elsewhere (a journal)
// that are rebuilt from it on start; [Sync] makes such files durable later.
func Replace(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, false, bytesOf(data))
}

// Stream replaces the file at path with what fill writes, through a
// buffer, by the same rename as [WriteFile] (durable) or [Replace] (not
// durable), so that a large file is written without being built in
// memory first. An error from fill leaves any previous file as it was.
func Stream(path string, perm os.FileMode, durable bool, fill func(w io.Writer) error) error {
	return write(path, perm, durable, buffered(fill))
}

// syncfsFrom is the number of paths from which Sync syncs their file
// systems whole rather than each file.
const syncfsFrom = 16

// Sync flushes each file in paths, and each directory holding one, to stable
// storage: what [Replace] wrote is then as durable as what [WriteFile] writes. A
// file or directory that no longer exists (removed since) has nothing to
// flush and is passed over.
//
// From syncfsFrom paths on, where the system has syncfs(2) (Linux), the
// files' file systems are synced whole instead, one call each.
func Sync(paths ...string) error {
	if len(paths) >= syncfsFrom {
		seen := map[string]bool{}
		var dirs []string
		for _, p := range paths {
			if d := filepath.Dir(p); !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
		if ok, err := syncFileSystems(dirs); ok || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
			if err != nil {
				return fmt.Errorf("atomicfile: sync %v: %w", dirs, err)
			}
			return nil
		}
	}
	dirs := map[string]bool{}
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("atomicfile: sync %s: %w", p, err)
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("atomicfile: sync %s: %w", p, err)
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("atomicfile: sync %s: %w", d, err)
		}
	}
	return nil
}

// tempInfix is in the name of every temporary file a write makes beside its
// target (".<name>.tmp-<random>"), until it replaces the target or is
// removed.
const tempInfix = ".tmp-"

// IsTemp reports whether name, a file's base name, is that of a write's
// temporary file: a file in the making, not one of the data.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempInfix)
}

func write(path string, perm os.FileMode, durable bool, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	// The directory nearly always exists: it is created only when the
	// temporary file cannot be, rather than looked up before every write.
	pattern := "." + filepath.Base(path) + tempInfix + "*"
	tmp, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("atomicfile: write %s: %w", path, err)
		}
		tmp, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			_ = tmp.Close()
		}
		_ = os.Remove(tmpName)
		err = fmt.Errorf("atomicfile: write %s: %w", path, err)
	}()

	if err := fill(tmp); err != nil {
		return err
	}
	// Through the open file, not its name: no path to look up again.
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	closed = true
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmpName, path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	// The new content is in place; a failed directory flush is still
	// reported, but the temporary name no longer exists to be removed.
	return syncDir(dir)
}

// Rewrite replaces the file at path with data durably and atomically, as
// [WriteFile] does, for a file rewritten again and again: the new content
// goes to a sibling, .<name>.next, kept from one rewrite to the next, which
// then trades places with the file in one step (Linux's renameat2 with
// RENAME_EXCHANGE); the sibling, which then holds the previous content, is
// emptied, so that no stale copy of a secret lingers in it. No file is
// created after the first rewrite: on a file system where creating files
// is slow (ext4 once many files have been deleted, where it takes hundreds
// of microseconds) a rewrite costs its writes and syncs alone. Where names
// cannot be exchanged the sibling is renamed over the file instead.
// Rewrites of one path must not run at once.
func Rewrite(path string, data []byte, perm os.FileMode) error {
	return rewrite(path, perm, bytesOf(data))
}

// RewriteStream is [Rewrite] of what fill writes, through a buffer, so
// that a large file is rewritten without being built in memory first (a
// thousand players rewriting their histories at once, say). An error from
// fill leaves the file as it was.
func RewriteStream(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	return rewrite(path, perm, buffered(fill))
}

// buffered returns fill writing through a buffer, flushed at its end.
func buffered(fill func(w io.Writer) error) func(w io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
}

func rewrite(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	next := filepath.Join(dir, "."+filepath.Base(path)+".next")
	f, err := os.OpenFile(next, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return write(path, perm, true, fill) // no directory yet, say
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("atomicfile: write %s: %w", path, err)
		}
	}()
	err = fill(f)
	if err == nil {
		err = f.Chmod(perm) // a sibling left by an earlier mode
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if exchange(next, path) == nil {
		// The previous content, whole, is the sibling's now: emptied, not
		// kept (a crash before this leaves it until the next rewrite).
		_ = os.Truncate(next, 0)
	} else if err := os.Rename(next, path); err != nil {
		// No file to trade places with yet, or no exchange here.
		return err
	}
	return syncDir(dir)
}

// syncDir flushes a directory so that a rename inside it is durable.
// Windows cannot open or flush a directory this way; there the rename is
// as durable as the platform makes it and the error is ignored.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		if runtime.GOOS == "windows" {
			return nil
		}
		return err
	}
	err = d.Sync()
	closeErr := d.Close()
	if runtime.GOOS == "windows" {
		return nil
	}
	if err != nil {
		return err
	}
	return closeErr
}

// WriteJSON atomically replaces the file at path with v encoded as indented
// JSON followed by a newline, with permission bits 0o644. A value that cannot
// be encoded leaves any previous file untouched.
func WriteJSON(path string, v any) error {
	return WriteJSONPerm(path, v, 0o644)
}

// WriteJSONPerm is [WriteJSON] with permission bits perm: 0o600 for a file
// that holds a secret.
func WriteJSONPerm(path string, v any, perm os.FileMode) error {
	data, err := wirejson.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("atomicfile: encode %s: %w", path, err)
	}
	return WriteFile(path, append(data, '\n'), perm)
}

// ReadJSON decodes the JSON document in the file at path into v. When the
// file does not exist the returned error satisfies
// [errors.Is](err, [fs.ErrNotExist]).
func ReadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("atomicfile: read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("atomicfile: decode %s: %w", path, err)
	}
	return nil
}

// SyncDir flushes the directory dir, so that a file created or renamed in
// it survives a power loss. On Windows it does nothing.
func SyncDir(dir string) error { return syncDir(dir) }
