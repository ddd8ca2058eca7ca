// Package scratch gives a process a directory of its own under TMPDIR for
// files too large to hold in memory (full CSV exports), and removes the
// directories that processes which are gone left behind. A lock the
// process holds on a file inside marks its directory live; the kernel
// drops the lock however the process ends (kill -9 included), so a process
// starting later tells a dead process's leftovers from a live one's, on a
// machine whose TMPDIR several replicas and commands share.
package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	// prefix starts the name of every process's directory; the process id
	// follows, for people looking at TMPDIR (liveness is the lock's, not
	// the id's: ids are reused, and differ between containers).
	prefix = "analyticsbot-scratch-"
	// lockName is the file whose lock marks its directory live. It is made
	// first and removed last, so a directory without it is empty or being
	// made.
	lockName = ".lock"
	// legacyPattern names the export files of versions that wrote them
	// straight into TMPDIR, whose owners cannot be told.
	legacyPattern = "analyticsbot-export-*.csv"
	// LegacyAge is how long since its last change such a file is left
	// alone: no export is written or delivered for that long.
	LegacyAge = time.Hour
)

// Dir is a process's own directory. Close removes it.
type Dir struct {
	path string
	lock *os.File

	mu     sync.Mutex
	closed bool
}

// Open makes the process's directory in parent (the system's temporary
// directory, TMPDIR, when "") and locks it for as long as the process
// lives or until Close.
func Open(parent string) (*Dir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	var err error
	// A sweeper may take the directory while it is being made (empty, not
	// yet locked): then make another.
	for range 3 {
		var d *Dir
		if d, err = open(parent); d != nil || err != nil {
			return d, err
		}
	}
	return nil, fmt.Errorf("scratch directory in %s: removed while being made, three times", parent)
}

// open makes and locks one directory; nil, nil when a sweeper removed it
// meanwhile.
func open(parent string) (*Dir, error) {
	path, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-*", prefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	lockPath := filepath.Join(path, lockName)
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	locked, err := tryLock(f)
	if err != nil || !locked {
		// Not locked: a sweeper holds it, and removes the directory.
		f.Close()
		if err != nil {
			_, _ = removeDir(path)
			return nil, fmt.Errorf("scratch directory: lock %s: %w", lockPath, err)
		}
		return nil, nil
	}
	// A sweeper that locked and released the file before us removed it.
	held, err1 := f.Stat()
	named, err2 := os.Stat(lockPath)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		f.Close()
		return nil, nil
	}
	return &Dir{path: path, lock: f}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Close removes the directory and everything in it, then lets go of it.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	_, err := removeDir(d.path)
	if cerr := d.lock.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeDir removes the directory at path: its files, then its lock file,
// then itself, so that a directory cut short by a kill still has its lock
// file while it has anything else. It returns the bytes removed.
func removeDir(path string) (int64, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return 0, fmt.Errorf("remove %s: %w", path, err)
	}
	var bytes int64
	var errs []error
	for _, e := range entries {
		if e.Name() == lockName {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			bytes += info.Size()
		}
		if err := os.RemoveAll(filepath.Join(path, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		if err := os.Remove(filepath.Join(path, lockName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		} else if err := os.Remove(path); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return bytes, fmt.Errorf("remove %s: %w", path, err)
	}
	return bytes, nil
}

// Swept is what Sweep removed.
type Swept struct {
	// Dirs are the directories of processes that are gone; Files the
	// export files older versions left straight in the directory.
	Dirs, Files int
	// Bytes is the size of the files removed.
	Bytes int64
}

// Sweep removes from parent (TMPDIR when "") the directories of processes
// that are gone, and the export files that versions before Dir left there
// unchanged for LegacyAge. The directories of live processes, and what
// belongs to other users, stay. On systems without file locks it removes
// no directory.
func Sweep(parent string) (Swept, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return Swept{}, fmt.Errorf("sweep %s: %w", parent, err)
	}
	var (
		swept Swept
		errs  []error
	)
	for _, e := range entries {
		path := filepath.Join(parent, e.Name())
		switch legacy, _ := filepath.Match(legacyPattern, e.Name()); {
		case e.IsDir() && strings.HasPrefix(e.Name(), prefix) && canLock:
			bytes, ok, err := sweepDir(path)
			if ok {
				swept.Dirs++
				swept.Bytes += bytes
			}
			if err != nil {
				errs = append(errs, err)
			}
		case legacy && e.Type().IsRegular():
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < LegacyAge {
				continue
			}
			if err := os.Remove(path); err == nil {
				swept.Files++
				swept.Bytes += info.Size()
			} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
				errs = append(errs, err)
			}
		}
	}
	return swept, errors.Join(errs...)
}

// sweepDir removes the directory at path when no process holds its lock,
// and reports whether it did.
func sweepDir(path string) (int64, bool, error) {
	f, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Being made (the lock file comes first), or emptied by a Close
		// cut short: only an empty directory goes.
		return 0, os.Remove(path) == nil, nil
	case errors.Is(err, fs.ErrPermission):
		return 0, false, nil // another user's
	case err != nil:
		return 0, false, fmt.Errorf("sweep %s: %w", path, err)
	}
	defer f.Close()
	locked, err := tryLock(f)
	if err != nil || !locked {
		return 0, false, err // live
	}
	bytes, err := removeDir(path)
	return bytes, err == nil, err
}
