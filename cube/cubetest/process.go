package cubetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// readyTimeout bounds the wait for /livez; a cold start takes about 2 s here.
	readyTimeout = 60 * time.Second
	// stopGrace is how long SIGTERM gets before SIGKILL.
	stopGrace = 5 * time.Second
	// portAttempts: the free port is found by binding and releasing it, so another process can
	// take it before Cube binds it; Start then tries a new port.
	portAttempts = 3
	// logLimit caps the kept server output; the tail is what explains a failure.
	logLimit = 4 << 20
	// modelDirName is the model's name inside the server's working directory (see spawn).
	modelDirName = "model"
)

// errPortTaken means Cube exited because its port was taken between choosing and binding it.
var errPortTaken = errors.New("port already in use")

// serverEnv is the server's Cube configuration: the database from dbURL, an in-memory cache and
// queue (no Cube Store, no Redis), and nothing that reaches the network beyond Postgres: no
// telemetry, no dev mode (which would serve the playground), no background refresh.
func serverEnv(dbURL string, extra map[string]string) (map[string]string, error) {
	pg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	// Cube's driver knows only on and off: turn TLS on only when the URL insists on it.
	ssl := pg.TLSConfig != nil && len(pg.Fallbacks) == 0
	env := map[string]string{
		"CUBEJS_DB_TYPE":                 "postgres",
		"CUBEJS_DB_HOST":                 pg.Host,
		"CUBEJS_DB_PORT":                 strconv.Itoa(int(pg.Port)),
		"CUBEJS_DB_NAME":                 pg.Database,
		"CUBEJS_DB_USER":                 pg.User,
		"CUBEJS_DB_PASS":                 pg.Password,
		"CUBEJS_DB_SSL":                  strconv.FormatBool(ssl),
		"CUBEJS_CACHE_AND_QUEUE_DRIVER":  "memory",
		"CUBEJS_TELEMETRY":               "false",
		"CUBEJS_DEV_MODE":                "false",
		"CUBEJS_SCHEDULED_REFRESH_TIMER": "false",
		"CUBEJS_LOG_LEVEL":               "warn",
		// Cube joins the schema path to its working directory even when it is absolute, so the
		// model is linked into the working directory under this relative name.
		"CUBEJS_SCHEMA_PATH": modelDirName,
	}
	for k, v := range extra {
		env[k] = v
	}
	return env, nil
}

// process is one cubejs-server and its working directory.
type process struct {
	cmd     *exec.Cmd
	workDir string
	log     *tailBuffer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited is closed
	once    sync.Once
	stopErr error
}

// launch starts the server on a free port and waits until it answers /livez, retrying with a new
// port when another process took the chosen one first. It returns the API base URL.
func launch(home, modelDir string, env map[string]string) (*process, string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, "", fmt.Errorf("node is not on PATH (Cube runs on Node.js; see scripts/install-cube.sh): %w", err)
	}
	modelDir, err = filepath.Abs(modelDir)
	if err != nil {
		return nil, "", fmt.Errorf("model dir: %w", err)
	}
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		env["PORT"] = strconv.Itoa(port)
		p, err := spawn(node, home, modelDir, env)
		if err != nil {
			return nil, "", err
		}
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		err = p.waitReady(base + "/livez")
		if err == nil {
			return p, base + "/cubejs-api/v1", nil
		}
		stopErr := p.stop()
		if errors.Is(err, errPortTaken) && attempt < portAttempts {
			continue
		}
		return nil, "", errors.Join(fmt.Errorf("%w\ncube server log:\n%s", err, p.log.String()), stopErr)
	}
}

// spawn starts cubejs-server in a fresh temporary working directory holding only a link to the
// model, so no cube.js or .env from elsewhere is picked up.
func spawn(node, home, modelDir string, env map[string]string) (*process, error) {
	workDir, err := os.MkdirTemp("", "cubetest-")
	if err != nil {
		return nil, fmt.Errorf("spawn cube: %w", err)
	}
	if err := os.Symlink(modelDir, filepath.Join(workDir, modelDirName)); err != nil {
		return nil, errors.Join(fmt.Errorf("spawn cube: link model: %w", err), os.RemoveAll(workDir))
	}
	cmd := exec.Command(node, filepath.Join(home, serverScript))
	cmd.Dir = workDir
	cmd.Env = environ(env)
	p, err := startProcess(cmd, workDir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("spawn cube: %w", err), os.RemoveAll(workDir))
	}
	return p, nil
}

// startProcess starts cmd with its output captured, in its own process group, and watches for
// its exit; stop later removes workDir.
func startProcess(cmd *exec.Cmd, workDir string) (*process, error) {
	p := &process{cmd: cmd, workDir: workDir, log: &tailBuffer{limit: logLimit}, exited: make(chan struct{})}
	cmd.Stdout = p.log
	cmd.Stderr = p.log
	cmd.SysProcAttr = sysProcAttr()
	// Bounds Wait when a stray child keeps the output pipes open after the server exits.
	cmd.WaitDelay = stopGrace
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// environ is this process's environment without any Cube or Node settings of the developer's
// (they would change the server under test), plus env.
func environ(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CUBEJS_") || strings.HasPrefix(k, "CUBESTORE_") || k == "PORT" || k == "NODE_OPTIONS" || k == "NODE_ENV" {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// waitReady polls url until it answers 200, the process exits, or readyTimeout passes.
func (p *process) waitReady(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", url, err)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			if strings.Contains(p.log.String(), "EADDRINUSE") {
				return errPortTaken
			}
			return fmt.Errorf("cube exited before answering %s: %v", url, p.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("cube did not answer %s within %v", url, readyTimeout)
		case <-tick.C:
		}
	}
}

// stop ends the server, SIGTERM first and SIGKILL after stopGrace, and removes its working
// directory. It is safe to call more than once.
func (p *process) stop() error {
	p.once.Do(func() {
		p.stopErr = p.terminate()
		if err := os.RemoveAll(p.workDir); err != nil {
			p.stopErr = errors.Join(p.stopErr, fmt.Errorf("remove cube work dir: %w", err))
		}
	})
	return p.stopErr
}

func (p *process) terminate() error {
	select {
	case <-p.exited:
		return nil // crashed or stopped already; a test that needed it has failed on its own
	default:
	}
	_ = signalGroup(p.cmd.Process, syscall.SIGTERM)
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-p.exited:
		return nil
	case <-grace.C:
	}
	if err := signalGroup(p.cmd.Process, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill cube (pid %d): %w", p.cmd.Process.Pid, err)
	}
	kill := time.NewTimer(stopGrace)
	defer kill.Stop()
	select {
	case <-p.exited:
		return nil
	case <-kill.C:
		return fmt.Errorf("cube (pid %d) still running %v after SIGKILL", p.cmd.Process.Pid, stopGrace)
	}
}

// freePort asks the kernel for a free TCP port on the loopback interface.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

// checkModel fetches /meta once: Cube compiles the model on the first request, so this surfaces
// a compile error (with Cube's message) at Start and warms the compiler for the first query.
func checkModel(s *Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/meta", nil)
	if err != nil {
		return fmt.Errorf("check model: %w", err)
	}
	req.Header.Set("Authorization", s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("check model: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("check model: read /meta: %w", err)
	}
	var meta struct {
		Cubes []json.RawMessage `json:"cubes"`
		Error string            `json:"error"`
	}
	if err := json.Unmarshal(body, &meta); err != nil || resp.StatusCode != http.StatusOK || meta.Error != "" || len(meta.Cubes) == 0 {
		return fmt.Errorf("check model: /meta answered %s: %.2000s", resp.Status, body)
	}
	return nil
}

// tailBuffer keeps the last limit bytes written to it; safe for concurrent use, since the
// server's stdout and stderr are copied by separate goroutines.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	limit int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
