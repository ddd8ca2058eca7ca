// Package cubetest starts a real Cube API server (cubejs-server 0.33.65, installed once by
// `make cube`) for tests, over a Postgres database that holds the demo schema, with the demo Cube
// model from demo/cube. Tests then talk to Cube over HTTP exactly as the bot does; without an
// install a test is skipped, or fails when CI=true.
package cubetest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Version is the Cube release Start runs and scripts/install-cube.sh installs.
const Version = "0.33.65"

// markerFile is written by scripts/install-cube.sh after a complete install.
const markerFile = ".analyticsbot-installed"

// serverScript is cubejs-server's entry point inside the install, run with node directly so a
// missing node is reported as such rather than as a failed shebang.
const serverScript = "node_modules/@cubejs-backend/server/bin/server"

// Server is a running Cube API server, stopped when the test that started it ends.
type Server struct {
	// URL is the REST API base, http://127.0.0.1:<port>/cubejs-api/v1.
	URL string
	// Secret is the CUBEJS_API_SECRET the server checks JSON Web Tokens (HS256) against.
	Secret string

	proc *process
}

// Log returns what the server has printed to stdout and stderr so far (the last few MiB).
func (s *Server) Log() string { return s.proc.log.String() }

// Token returns a JSON Web Token the server accepts, valid for an hour, with no claims beyond
// the times: the demo model needs no security context.
func (s *Server) Token() string { return Token(s.Secret) }

// Token signs a JSON Web Token (HS256) with secret, valid for an hour.
func Token(secret string) string {
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
	})
	signed, err := tok.SignedString([]byte(secret))
	if err != nil {
		// HS256 over a []byte key cannot fail; a failure here is a broken library.
		panic(fmt.Sprintf("cubetest: sign token: %v", err))
	}
	return signed
}

// Option changes how Start runs the server.
type Option func(*config)

type config struct {
	modelDir   string
	env        map[string]string
	checkModel bool
}

// WithModelDir serves the Cube model files in dir instead of the repository's demo/cube.
func WithModelDir(dir string) Option { return func(c *config) { c.modelDir = dir } }

// WithEnv sets one more environment variable for the server, overriding Start's own (for
// example CUBEJS_LOG_LEVEL=info to see every query in Log).
func WithEnv(key, value string) Option { return func(c *config) { c.env[key] = value } }

// WithoutModelCheck makes Start return as soon as /livez answers. By default Start also fetches
// /meta once, so that a model that does not compile fails Start with Cube's message instead of
// failing every query later; tests of how a client reports a broken model need it skipped.
func WithoutModelCheck() Option { return func(c *config) { c.checkModel = false } }

// Start starts cubejs-server from Home() against the Postgres database dbURL (a postgres:// URL
// or key=value DSN whose database holds the analytics schema with the demo data), serving the
// model in the repository's demo/cube unless WithModelDir says otherwise, on a free port. It
// waits until /livez answers and the model compiles, and fails the test after 60 s with the
// server's log. Cleanup stops the server (SIGTERM, then SIGKILL after 5 s) and removes its
// temporary files. Without an install (`make cube`) the test is skipped, or fails when CI=true.
func Start(t testing.TB, dbURL string, opts ...Option) *Server {
	t.Helper()
	cfg := config{env: map[string]string{}, checkModel: true}
	for _, o := range opts {
		o(&cfg)
	}
	home := Home()
	if err := checkInstall(home); err != nil {
		unavailable(t, err.Error())
	}
	if cfg.modelDir == "" {
		dir, err := defaultModelDir()
		if err != nil {
			t.Fatalf("cubetest: %v", err)
		}
		cfg.modelDir = dir
	}
	env, err := serverEnv(dbURL, cfg.env)
	if err != nil {
		t.Fatalf("cubetest: %v", err)
	}
	secret := randomSecret()
	env["CUBEJS_API_SECRET"] = secret

	started := time.Now()
	proc, url, err := launch(home, cfg.modelDir, env)
	if err != nil {
		t.Fatalf("cubetest: start cube: %v", err)
	}
	s := &Server{URL: url, Secret: secret, proc: proc}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cube server log:\n%s", s.Log())
		}
		if err := proc.stop(); err != nil {
			t.Errorf("cubetest: %v", err)
		}
	})
	if cfg.checkModel {
		if err := checkModel(s); err != nil {
			t.Fatalf("cubetest: %v\ncube server log:\n%s", err, s.Log())
		}
	}
	t.Logf("cube %s up at %s in %v", Version, url, time.Since(started).Round(time.Millisecond))
	return s
}

// Home returns the directory Cube is installed in: $ANALYTICSBOT_CUBE_HOME, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/analyticsbot/cube-0.33.65, the same rule as
// scripts/install-cube.sh. (os.UserCacheDir is not used: on macOS it differs from the script.)
func Home() string {
	if h := os.Getenv("ANALYTICSBOT_CUBE_HOME"); h != "" {
		return h
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return filepath.Join(cache, "analyticsbot", "cube-"+Version)
}

// checkInstall reports why home holds no usable install, or nil.
func checkInstall(home string) error {
	for _, f := range []string{markerFile, serverScript} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			return fmt.Errorf("cube %s is not installed in %s (run `make cube`): %w", Version, home, err)
		}
	}
	return nil
}

// unavailable skips the test, or fails it when CI=true: CI installs Cube, so a missing install
// there is a broken pipeline, never a reason to pass.
func unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", reason)
	}
	t.Skipf("skipping: %s", reason)
}

// defaultModelDir finds demo/cube in the repository that holds the working directory (go test
// runs in the package directory, somewhere below the root).
func defaultModelDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find demo/cube: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			model := filepath.Join(dir, "demo", "cube")
			if _, err := os.Stat(model); err != nil {
				return "", fmt.Errorf("find demo/cube: %w", err)
			}
			return model, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find demo/cube: no go.mod above the working directory")
		}
		dir = parent
	}
}

// randomSecret gives each server its own secret, so a token for one never works on another.
func randomSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}
