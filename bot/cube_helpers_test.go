package bot_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// cubeEnv is a database with the demo data and one real Cube server on it,
// shared by every Cube-mode bot of TestCube.
type cubeEnv struct {
	*testEnv
	cube *cubetest.Server
}

// newCubeEnv creates the database and starts Cube before loading the demo
// data: Cube reads the database only when queried, and without a Cube
// install the test is skipped before paying for the load.
func newCubeEnv(t *testing.T) *cubeEnv {
	t.Helper()
	db, dbURL := storetest.NewWithURL(t)
	srv := cubetest.Start(t, dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := demo.Load(ctx, db.Pool(), demo.Options{})
	require.NoError(t, err, "load the demo data")
	return &cubeEnv{testEnv: &testEnv{url: dbURL, admin: db}, cube: srv}
}

// cubeBot builds a bot with BACKEND=cube on ce's Cube server that plays
// rules; adjust may point it elsewhere (a proxy, a wrong secret).
func cubeBot(t *testing.T, ce *cubeEnv, rules string, adjust ...func(*bot.Config)) *bot.Bot {
	t.Helper()
	cube := func(c *bot.Config) {
		c.Backend, c.Cube.APIURL, c.Cube.APISecret = "cube", ce.cube.URL, ce.cube.Secret
	}
	return newBot(t, ce.testEnv, rules, append([]func(*bot.Config){cube}, adjust...)...)
}

// cubeRule is a scripted generate_cube rule answering with query (a Cube
// query as JSON). An empty match answers every question; times 0 means no
// limit. The reply may use the match's groups (${year}).
func cubeRule(match string, times int, query string) string {
	var b strings.Builder
	b.WriteString("\n  - step: generate_cube\n")
	if match != "" {
		fmt.Fprintf(&b, "    match: '%s'\n", match)
	}
	if times > 0 {
		fmt.Fprintf(&b, "    times: %d\n", times)
	}
	fmt.Fprintf(&b, "    reply: '{\"query\": %s, \"assumptions\": [\"The demo data ends in May 2019.\"], \"reasoning\": \"Asks Cube.\"}'\n",
		strings.Join(strings.Fields(query), " "))
	return b.String()
}

// yearRules answer "How many games were released in <year>?" with a count
// filtered on Apps.release_year, and interpret its result quoting the count.
var yearRules = cubeRule(`(?im)^Question: how many games were released in (?P<year>\d{4})`, 0,
	`{"measures": ["Apps.count"], "filters": [{"member": "Apps.release_year", "operator": "equals", "values": ["${year}"]}]}`) + `
  - step: interpret
    match: '(?s)First rows \(tab-separated\):\ncount\n(?P<n>\d+)\n.*\nQuestion: How many games were released in (?P<year>\d{4})'
    reply: '*${n}* games were released on Steam in ${year}.'
`

// sqlRows runs sql on the demo database through the admin pool and returns
// its rows as pgx decodes them: bigint as int64, float8 as float64, text as
// string, the types a Cube result must hold too.
func sqlRows(t *testing.T, e *testEnv, sql string) [][]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := e.admin.Pool().Query(ctx, sql)
	require.NoError(t, err, "run %s", sql)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	require.NoError(t, err, "read the rows of %s", sql)
	require.NotEmpty(t, out, "%s returns no rows, so a comparison proves nothing", sql)
	return out
}

// startCubeProxy serves an HTTP reverse proxy to the Cube server at
// cubeURL and returns its API URL. intercept sees each request first and
// answers it itself by returning true. The proxy stops when the test ends;
// requests still held by intercept are released first through done.
func startCubeProxy(t *testing.T, cubeURL string, intercept func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) bool) string {
	t.Helper()
	target, err := url.Parse(cubeURL)
	require.NoError(t, err, "parse the cube url")
	target.Path = ""
	next := httputil.NewSingleHostReverseProxy(target)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r, done) {
			next.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs before srv.Close, which waits for held requests
	return srv.URL + "/cubejs-api/v1"
}
