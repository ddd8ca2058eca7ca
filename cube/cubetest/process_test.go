package cubetest

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noDB is a database URL nobody listens on: Cube connects only when a query runs, and these
// tests run none.
const noDB = "postgres://nobody@127.0.0.1:1/none?sslmode=disable"

func TestServerEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		dbURL string
		extra map[string]string
		want  map[string]string
	}{
		{
			name:  "local trust URL",
			dbURL: "postgres://postgres@127.0.0.1:5432/abt_test_1?sslmode=disable",
			want: map[string]string{"CUBEJS_DB_HOST": "127.0.0.1", "CUBEJS_DB_PORT": "5432", "CUBEJS_DB_NAME": "abt_test_1",
				"CUBEJS_DB_USER": "postgres", "CUBEJS_DB_PASS": "", "CUBEJS_DB_SSL": "false"},
		},
		{
			name:  "password and required TLS",
			dbURL: "postgresql://bot:p%40ss@db.example:6543/analytics?sslmode=require",
			want: map[string]string{"CUBEJS_DB_HOST": "db.example", "CUBEJS_DB_PORT": "6543", "CUBEJS_DB_NAME": "analytics",
				"CUBEJS_DB_USER": "bot", "CUBEJS_DB_PASS": "p@ss", "CUBEJS_DB_SSL": "true"},
		},
		{
			name:  "key=value DSN over a socket",
			dbURL: "host=/var/run/postgresql dbname=demo user=reader sslmode=disable",
			want: map[string]string{"CUBEJS_DB_HOST": "/var/run/postgresql", "CUBEJS_DB_PORT": "5432", "CUBEJS_DB_NAME": "demo",
				"CUBEJS_DB_USER": "reader", "CUBEJS_DB_SSL": "false"},
		},
		{
			name:  "options override the defaults",
			dbURL: noDB,
			extra: map[string]string{"CUBEJS_LOG_LEVEL": "info"},
			want: map[string]string{"CUBEJS_LOG_LEVEL": "info", "CUBEJS_DB_TYPE": "postgres", "CUBEJS_DEV_MODE": "false",
				"CUBEJS_TELEMETRY": "false", "CUBEJS_CACHE_AND_QUEUE_DRIVER": "memory", "CUBEJS_SCHEMA_PATH": modelDirName},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := serverEnv(tt.dbURL, tt.extra)
			require.NoError(t, err)
			for k, want := range tt.want {
				assert.Equal(t, want, got[k], "%s: got %q, want %q", k, got[k], want)
			}
		})
	}

	_, err := serverEnv("mysql://x@y/z", nil)
	assert.Error(t, err, "serverEnv of a MySQL URL: want an error")
}

func TestEnvironDropsDeveloperCubeSettings(t *testing.T) {
	t.Setenv("CUBEJS_DB_TYPE", "mysql")
	t.Setenv("CUBEJS_DEV_MODE", "true")
	t.Setenv("PORT", "4000")
	t.Setenv("NODE_OPTIONS", "--inspect")
	t.Setenv("CUBETEST_KEEP", "yes")

	got := environ(map[string]string{"CUBEJS_DB_TYPE": "postgres"})
	assert.Contains(t, got, "CUBEJS_DB_TYPE=postgres")
	assert.Contains(t, got, "CUBETEST_KEEP=yes", "unrelated variables pass through")
	for _, kv := range got {
		assert.NotContains(t, []string{"CUBEJS_DB_TYPE=mysql", "CUBEJS_DEV_MODE=true", "PORT=4000", "NODE_OPTIONS=--inspect"}, kv)
	}
}

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	b := &tailBuffer{limit: 8}
	for _, s := range []string{"abc", "defgh", "ijk"} {
		_, _ = b.Write([]byte(s))
	}
	assert.Equal(t, "defghijk", b.String(), "tail of 8 bytes")
}

// TestCleanupStopsServer starts a server in a subtest and checks, once the subtest's cleanup
// has run, that the process is gone, its port closed and its working directory removed.
func TestCleanupStopsServer(t *testing.T) {
	t.Parallel()
	var s *Server
	t.Run("server", func(t *testing.T) {
		s = Start(t, noDB)
		resp, err := http.Get(strings.TrimSuffix(s.URL, "/cubejs-api/v1") + "/livez")
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "/livez")
	})
	if s == nil {
		t.Skip("server subtest skipped")
	}
	select {
	case <-s.proc.exited:
	default:
		t.Fatalf("cube (pid %d) still running after cleanup", s.proc.cmd.Process.Pid)
	}
	_, err := os.Stat(s.proc.workDir)
	assert.True(t, errors.Is(err, os.ErrNotExist), "work dir %s after cleanup: got %v, want not exist", s.proc.workDir, err)
	_, err = http.Get(s.URL + "/meta")
	assert.Error(t, err, "GET /meta after cleanup: want connection refused")
}

// TestStartFailures checks what Start does to the test when it cannot give it a server.
func TestStartFailures(t *testing.T) {
	t.Run("broken model fails with Cube's message", func(t *testing.T) {
		requireInstall(t)
		dir := t.TempDir()
		model := "cubes:\n  - name: Broken\n    sql_table: analytics.apps\n    joins:\n" +
			"      - name: Missing\n        relationship: many_to_one\n        sql: \"{CUBE}.id = {Missing}.id\"\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yml"), []byte(model), 0o644))

		ft := runStart(t, noDB, WithModelDir(dir))
		require.Empty(t, ft.skipped, "Start skipped")
		assert.Contains(t, ft.fatal, "Cube Missing doesn't exist", "Start's failure")

		ft = runStart(t, noDB, WithModelDir(dir), WithoutModelCheck())
		assert.Empty(t, ft.fatal, "Start WithoutModelCheck failed")
	})

	empty := t.TempDir()
	tests := []struct {
		name      string
		ci        string
		wantSkip  bool
		wantFatal bool
	}{
		{name: "not installed skips", ci: "", wantSkip: true},
		{name: "not installed fails in CI", ci: "true", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ANALYTICSBOT_CUBE_HOME", empty)
			t.Setenv("CI", tt.ci)
			ft := runStart(t, noDB)
			assert.Equal(t, tt.wantSkip, ft.skipped != "", "skipped: %q", ft.skipped)
			assert.Equal(t, tt.wantFatal, ft.fatal != "", "fatal: %q", ft.fatal)
			assert.Contains(t, ft.skipped+ft.fatal, "make cube", "message says how to install")
		})
	}
}

// runStart runs Start against a recording testing.TB; cleanups Start registered run when the
// real test ends.
func runStart(t *testing.T, dbURL string, opts ...Option) *fakeTB {
	t.Helper()
	ft := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(ft, dbURL, opts...)
	}()
	<-done
	t.Cleanup(ft.runCleanups)
	return ft
}

// requireInstall skips the test (fails it when CI=true) without a Cube install.
func requireInstall(t *testing.T) {
	t.Helper()
	if err := checkInstall(Home()); err != nil {
		unavailable(t, err.Error())
	}
}

// fakeTB records Start's Fatalf and Skipf (ending the calling goroutine as the real ones do)
// and collects its cleanups; everything else goes to the real test.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	fatal    string
	skipped  string
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.mu.Lock()
	f.skipped = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fatal != ""
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}
