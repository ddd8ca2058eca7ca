package cube

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// Defaults of a [Config]; see the matching fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultRetries        = 3
	DefaultBackoffInitial = 500 * time.Millisecond
	DefaultBackoffMax     = 4 * time.Second
	DefaultPollInterval   = 500 * time.Millisecond
)

// apiPath is where Cube serves the REST API under its base URL.
const apiPath = "/cubejs-api/v1"

const tracerName = "github.com/analyticsbot/analyticsbot/cube"

// Config configures a [Client]. Zero durations and counts take the defaults.
type Config struct {
	// APIURL is Cube's address, with or without the /cubejs-api/v1 suffix,
	// such as http://127.0.0.1:4000/cubejs-api/v1.
	APIURL string
	// Secret is CUBEJS_API_SECRET, the HS256 key the tokens are signed with.
	Secret string
	// SecurityContext holds extra JWT claims; Cube reads them as the security
	// context of every request. They cannot override iat and exp.
	SecurityContext map[string]any
	// Timeout bounds one call (Meta, Load or SQL) as a whole, including
	// "Continue wait" polling and retries (default 30s).
	Timeout time.Duration
	// Retries is how many times a request is repeated after a 502/503/504 or
	// a connection error (default 3). 4xx answers are never retried. Negative
	// values mean no retries.
	Retries int
	// BackoffInitial and BackoffMax bound the exponential wait between
	// retries (defaults 500ms and 4s).
	BackoffInitial, BackoffMax time.Duration
	// PollInterval is the wait between two polls of a query Cube is still
	// running (default 500ms).
	PollInterval time.Duration
	// HTTPClient sends the requests (default: a client without its own
	// timeout, since Timeout bounds each call).
	HTTPClient *http.Client
	// Now is the clock tokens are signed with (default time.Now); tests set
	// it to check the refresh before expiry.
	Now func() time.Time
	// TracerProvider receives a span per call (default: the global provider
	// at call time).
	TracerProvider trace.TracerProvider
}

// Client calls one Cube deployment. It is safe for concurrent use.
type Client struct {
	base    string // APIURL ending in /cubejs-api/v1, without a trailing slash
	cfg     Config
	httpc   *http.Client
	tokenMu sync.Mutex
	token   string
	expires time.Time
}

// New checks cfg and returns a client. It does not contact Cube.
func New(cfg Config) (*Client, error) {
	base, err := apiBase(cfg.APIURL)
	if err != nil {
		return nil, fmt.Errorf("cube: %w", err)
	}
	if cfg.Secret == "" {
		return nil, errors.New("cube: the API secret is empty (set CUBE_API_SECRET)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	}
	cfg.Retries = max(cfg.Retries, 0)
	if cfg.BackoffInitial <= 0 {
		cfg.BackoffInitial = DefaultBackoffInitial
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = max(DefaultBackoffMax, cfg.BackoffInitial)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	httpc := cfg.HTTPClient
	if httpc == nil {
		httpc = &http.Client{}
	}
	return &Client{base: base, cfg: cfg, httpc: httpc}, nil
}

// apiBase turns the configured URL into the REST API base, accepting it with
// or without the /cubejs-api/v1 suffix.
func apiBase(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("the API URL is empty (set CUBE_API_URL)")
	}
	const want = "want http(s)://host[:port][/cubejs-api/v1]"
	// The URL is named with its password masked, and the parse error,
	// which may quote a piece of the password, is left out.
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("API URL %q: %s", redact.URL(strings.TrimSpace(raw)), want)
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	if !strings.HasSuffix(u.Path, apiPath) {
		u.Path += apiPath
	}
	return u.String(), nil
}

func (c *Client) tracer() trace.Tracer {
	tp := c.cfg.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(tracerName)
}
