package main

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIDoctor: doctor names what stands in the way, with the fix, and
// exits 1 until it is fixed: here a table the reader may not read, a
// Slack token missing scopes and a schema a session of the reader opened
// by hand could create objects in, then none; then temporary tables,
// large objects and a function that are PUBLIC's again, until migrate.
func TestCLIDoctor(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.games (id int);`)
	require.NoError(t, err)
	setUp(t, dbURL)
	reader := readerOf(t, dbURL)
	// A grant that would let a session of the reader opened by hand keep
	// something, whatever migrate took from PUBLIC.
	_, err = db.Pool().Exec(ctx, `GRANT CREATE ON SCHEMA marts TO `+reader)
	require.NoError(t, err)
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	t.Setenv("ACCESS_FILE", "")
	slack := fakeslack.New(t)
	slack.SetScopes("chat:write", "commands")
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_SIGNING_SECRET", "")
	t.Setenv("SLACK_API_URL", slack.APIURL())

	got := runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	out := got.stdout
	assert.Contains(t, out, "✓ the bot's database answers\n")
	assert.Contains(t, out, "✓ migrations: all applied\n")
	assert.Contains(t, out, "✓ the reader role "+reader+" logs in\n")
	assert.Contains(t, out, "✗ the reader role "+reader+" may not use schema \"marts\" (GRANT USAGE ON SCHEMA \"marts\" TO \""+reader+"\"): run `analyticsbot grant`\n")
	assert.Contains(t, out, "✗ "+reader+" may not read marts.games: the model never sees them; run `analyticsbot grant`")
	assert.NotContains(t, out, "other databases", "the database's own reader is nobody else's")
	assert.Contains(t, out, "✗ Slack: the bot token lacks the scopes app_mentions:read, assistant:write")
	assert.Contains(t, out, "! ACCESS_FILE is not set")
	assert.Contains(t, out, "! no language model")
	assert.Contains(t, out, "✗ "+reader+": it may create objects in schema marts: REVOKE CREATE ON SCHEMA \"marts\" FROM \""+reader+"\" (and from PUBLIC)\n")

	_, err = db.Pool().Exec(ctx, `REVOKE CREATE ON SCHEMA marts FROM `+reader)
	require.NoError(t, err)
	require.NoError(t, runCLI(t, "", "grant").err)
	slack.SetScopes(fakeslack.Scopes...)
	got = runCLI(t, "", "doctor")
	require.NoError(t, got.err, "stdout: %s", got.stdout)
	assert.Contains(t, got.stdout, "✓ "+reader+" reads every table of marts\n")
	assert.Contains(t, got.stdout, "✓ Slack: the bot token has every scope the app uses\n")
	assert.Contains(t, got.stdout, "✓ "+reader+": a session opened by hand is read-only by default with a statement timeout, "+
		"and even read-write could not write, create anything, use temporary tables or keep large objects\n")
	assert.NotContains(t, got.stdout, "✗")

	// A database the bot's login could not harden: temporary tables and
	// large objects are PUBLIC's again, and a function too.
	_, err = db.Pool().Exec(ctx, `GRANT TEMPORARY ON DATABASE `+pgx.Identifier{dbName(t, db)}.Sanitize()+` TO PUBLIC;
		GRANT EXECUTE ON FUNCTION lo_from_bytea(oid, bytea) TO PUBLIC;
		CREATE FUNCTION marts.total() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS 'SELECT count(*) FROM marts.games'`)
	require.NoError(t, err)
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "✗ "+reader+": it may create temporary tables: run `analyticsbot migrate` as the database's owner")
	assert.Contains(t, got.stdout, "✗ "+reader+": it may create large objects, which outlive its session: run `analyticsbot migrate` as a superuser")
	assert.Contains(t, got.stdout, "! every role may execute marts.total(): with the guard off a policy could call them; run `analyticsbot access apply` (or `analyticsbot grant`)\n")

	require.NoError(t, runCLI(t, "", "migrate").err)
	got = runCLI(t, "", "doctor")
	assert.NotContains(t, got.stdout, "✗ "+reader+": it may", "migrate took them from PUBLIC again")
	assert.NotContains(t, got.stdout, "temp_file_limit", "migrate ran as a superuser, which set it")

	// A reader whose temp_file_limit no one could set (migrate run by a
	// role that may not), on a server without one.
	_, err = db.Pool().Exec(ctx, `ALTER ROLE `+pgx.Identifier{reader}.Sanitize()+` IN DATABASE `+pgx.Identifier{dbName(t, db)}.Sanitize()+` RESET temp_file_limit`)
	require.NoError(t, err)
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "! "+reader+" has no temp_file_limit here, nor has the server: a sort or hash spilling to disk is bounded only by the statement timeout")
	require.NoError(t, runCLI(t, "", "migrate").err)

	// The reader every database shared before is found in another
	// deployment's database, which the migrations set it up in.
	storetest.New(t)
	t.Setenv("READER_ROLE", "analyticsbot_reader")
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "! the reader role analyticsbot_reader is set up in other databases of this server too (")
	assert.Contains(t, got.stdout, "deployments sharing a reader can read what each granted it")
}

// dbName is the name of db's database.
func dbName(t *testing.T, db *store.DB) string {
	t.Helper()
	var name string
	require.NoError(t, db.Pool().QueryRow(context.Background(), `SELECT current_database()`).Scan(&name))
	return name
}

// serve refuses one secret for two identities (two named tokens, or a
// named token and HTTP_TOKEN); doctor says so too, naming the tokens and
// never the secret.
func TestCLIDoctorTokenSecretsShared(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
tokens:
  - name: dashboards
    env: ABT_DOCTOR_SHARED_A
  - name: notebooks
    env: ABT_DOCTOR_SHARED_B
policies:
  - name: machines
    users: ["token:dashboards", "token:notebooks"]
    tables: ["analytics.*"]
default: none
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	const a, b = "aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb"
	for _, tt := range []struct {
		name, a, b, http, want string
	}{
		{"two tokens", a, a, "", `✗ the tokens "dashboards" and "notebooks" have the same secret: give each a secret of its own`},
		{"HTTP_TOKEN", a, b, b, `✗ HTTP_TOKEN has the same secret as the access file's token "notebooks": give each a secret of its own`},
		{"each its own", a, b, "cccccccccccccccccccc", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ABT_DOCTOR_SHARED_A", tt.a)
			t.Setenv("ABT_DOCTOR_SHARED_B", tt.b)
			t.Setenv("HTTP_TOKEN", tt.http)
			got := runCLI(t, "", "doctor")
			if tt.want != "" {
				assert.Contains(t, got.stdout, tt.want)
				assert.ErrorIs(t, got.err, errProblems)
			} else {
				assert.NotContains(t, got.stdout, "same secret")
			}
			for _, secret := range []string{a, b} {
				assert.NotContains(t, got.stdout+got.stderr, secret, "doctor never prints a secret")
			}
		})
	}
}

// docs/access.md: a named token's secret must be at least 16 characters;
// doctor says which token's is shorter, and where it is read from.
func TestCLIDoctorTokenSecrets(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
tokens:
  - name: dashboards
    env: ABT_DOCTOR_TOKEN_DASHBOARDS
policies:
  - name: dashboards
    users: ["token:dashboards"]
    tables: ["analytics.*"]
default: none
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	doctorJudgesSecrets(t, "ABT_DOCTOR_TOKEN_DASHBOARDS",
		"✗ the token \"dashboards\" needs a secret of at least 16 characters in ABT_DOCTOR_TOKEN_DASHBOARDS", "needs a secret", []secretCase{
			{"unset", "", true},
			{"15 characters", "0123456789abcde", true},
			{"16 characters", "0123456789abcdef", false},
		})
}

// README: HTTP_TOKEN needs at least 16 characters, as serve holds at
// start; doctor fails on a shorter one, with or without an access file,
// and never prints it.
func TestCLIDoctorHTTPTokenLength(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	t.Setenv("ACCESS_FILE", "")
	doctorJudgesSecrets(t, "HTTP_TOKEN", "✗ serve would not start: HTTP_TOKEN needs a secret of at least 16 characters", "HTTP_TOKEN needs", []secretCase{
		{"one character", "x", true},
		{"15 characters", "zyxwvutsrqponml", true},
		{"16 characters", "zyxwvutsrqponmlk", false},
		{"unset", "", false},
	})
}

// secretCase is a secret doctor runs with, and whether it refuses it.
type secretCase struct {
	name, secret string
	refused      bool
}

// doctorJudgesSecrets runs doctor with each case's secret in env: it says
// refusal (and fails) for the refused ones, says nothing of mention for
// the others, and never prints a secret (of more than one character,
// which the output may hold by chance).
func doctorJudgesSecrets(t *testing.T, env, refusal, mention string, cases []secretCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(env, tt.secret)
			got := runCLI(t, "", "doctor")
			if tt.refused {
				assert.Contains(t, got.stdout, refusal)
				assert.ErrorIs(t, got.err, errProblems)
			} else {
				assert.NotContains(t, got.stdout, mention)
			}
			if len(tt.secret) > 1 {
				assert.NotContains(t, got.stdout+got.stderr, tt.secret, "doctor never prints the secret")
			}
		})
	}
}

// docs/access.md: doctor checks the access file's Slack user groups. A
// mistyped id is a group with no members, whose people get another
// policy; without a bot token nobody can tell who is in one.
func TestCLIDoctorUserGroups(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	write := func(members string) {
		require.NoError(t, os.WriteFile(path, []byte(`
groups:
  data: [UALICE, `+members+`]
policies:
  - name: data
    groups: [data]
    tables: ["analytics.*"]
default: none
`), 0o600))
	}
	write("S0DATA, S0TYPO")
	t.Setenv("ACCESS_FILE", path)
	got := runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "! the access file names Slack user groups (S0DATA, S0TYPO), and SLACK_BOT_TOKEN is not set: nobody can tell who is in them")

	slack := fakeslack.New(t)
	slack.SetUserGroup("S0DATA", "UBOB")
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	got = runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	assert.Contains(t, got.stdout, "✗ Slack has no user group S0TYPO, which the access file names: it has no members, so its people get another policy or none")
	assert.NotContains(t, got.stdout, "S0DATA, S0TYPO")

	write("S0DATA")
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "✓ Slack lists the access file's user groups (S0DATA)\n")
	assert.NotContains(t, got.stdout, "no user group")

	// A token without usergroups:read: the missing scope is one problem,
	// said once, by the scope check, with its fix.
	scopes := slices.DeleteFunc(slices.Clone(fakeslack.Scopes), func(s string) bool { return s == "usergroups:read" })
	slack.SetScopes(scopes...)
	got = runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	assert.Contains(t, got.stdout, "✗ Slack: the bot token lacks the scopes usergroups:read: add them under OAuth & Permissions")
	var problems []string
	for line := range strings.Lines(got.stdout) {
		if strings.HasPrefix(line, "✗") && strings.Contains(line, "Slack") {
			problems = append(problems, line)
		}
	}
	assert.Len(t, problems, 1, "one problem with Slack, reported once: %q", problems)
	assert.Equal(t, 1, strings.Count(got.stdout, "usergroups:read"), "the scope named once")
	assert.Contains(t, got.stdout, "! the access file's Slack user groups (S0DATA) are not checked")
	assert.NotContains(t, got.stdout, "missing_scope", "Slack's error code is not the report")
	assert.NotContains(t, got.stdout, "✓ Slack lists the access file's user groups", "they were not listed")
}

// A DATABASE_URL that does not parse, or names a server that does not
// answer, is shown with its password masked, by doctor and by the commands
// that stop on it: keyword/value and URL forms, and a password that is
// itself what does not parse.
func TestCLIDatabaseURLPasswordNeverShown(t *testing.T) {
	setDemoEnv(t, "")
	clearSlackEnv(t)
	const password = "pw-Never-Shown-7"
	for _, url := range []string{
		"host=127.0.0.1 user=postgres password=" + password + " dbname=x sslmode=bogus",
		"host='127.0.0.1 user=postgres password=" + password,
		"postgres://postgres:" + password + "%zz@127.0.0.1/x",
		"postgres://postgres:" + password + "@127.0.0.1:notaport/x",
		"postgres://postgres:" + password + "@127.0.0.1:1/x?connect_timeout=2",
		"host=127.0.0.1 port=1 user=postgres password=" + password + " dbname=x connect_timeout=2",
	} {
		t.Setenv("DATABASE_URL", url)
		for _, args := range [][]string{{"doctor"}, {"migrate"}, {"ask", "How many games are free?"}, {"schedules", "list"}} {
			got := runCLI(t, "", args...)
			require.Error(t, got.err, "%v with %s", args, url)
			shown := got.stdout + got.stderr + got.err.Error()
			assert.NotContains(t, shown, password, "%v with %s", args, url)
			assert.NotEmpty(t, strings.TrimSpace(shown), "%v says what stopped it", args)
		}
	}
	// docs/security.md: a URL that does not parse is quoted with its
	// password masked; a server that does not answer is named by its host,
	// port and database.
	t.Setenv("DATABASE_URL", "postgres://postgres:"+password+"%zz@127.0.0.1/x")
	assert.Contains(t, runCLI(t, "", "doctor").stdout, "cannot parse `postgres://postgres:xxxxx@127.0.0.1/x`")
	t.Setenv("DATABASE_URL", "postgres://postgres:"+password+"@127.0.0.1:1/x?connect_timeout=2")
	assert.Contains(t, runCLI(t, "", "doctor").stdout, "✗ the bot's database: open database 127.0.0.1:1/x: database unavailable")
}

// So is a password in the URL of the model's server or of Cube when the URL
// does not parse or is not one the setting takes, whichever command stops
// on it.
func TestCLIServiceURLPasswordNeverShown(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	t.Setenv("LLM_RETRIES", "0")
	const password = "pw-Never-Shown-8"
	for _, env := range []map[string]string{
		{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test", "LLM_BASE_URL": "http://u:" + password + "%zz@127.0.0.1:1/v1"},
		{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test", "LLM_BASE_URL": "u:" + password + "@127.0.0.1:1/v1"},
		{"LLM_PROVIDER": "ollama", "LLM_BASE_URL": "http://u:" + password + "%zz@127.0.0.1:1"},
		{"BACKEND": "cube", "CUBE_API_SECRET": "s", "CUBE_API_URL": "http://u:" + password + "%zz@127.0.0.1:1/cubejs-api/v1"},
		{"BACKEND": "cube", "CUBE_API_SECRET": "s", "CUBE_API_URL": "ftp://u:" + password + "@127.0.0.1:1/cubejs-api/v1"},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		for _, args := range [][]string{{"doctor"}, {"ask", "How many games are free?"}} {
			got := runCLI(t, "", args...)
			shown := got.stdout + got.stderr
			if got.err != nil {
				shown += got.err.Error()
			}
			assert.NotContains(t, shown, password, "%v with %v", args, env)
			if args[0] == "ask" {
				assert.Contains(t, shown, "xxxxx", "%v with %v names the URL, masked", args, env)
			}
		}
		for k := range env {
			t.Setenv(k, "")
		}
	}
}

// A backend other than PostgreSQL is asked for its catalog, as a question
// would: a Cube that does not answer is a problem, not "cube answers"; a
// real Cube on the demo's model answers with its cubes.
func TestCLIDoctorCube(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	t.Setenv("BACKEND", "cube")
	t.Setenv("CUBE_API_SECRET", "a-secret-of-thirty-two-characters")
	t.Setenv("CUBE_API_URL", "http://127.0.0.1:1/cubejs-api/v1")
	got := runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	assert.Contains(t, got.stdout, "✗ cube does not answer: ")
	assert.NotContains(t, got.stdout, "✓ cube answers")

	t.Setenv("BACKEND", "")
	require.NoError(t, runCLI(t, "", "demo", "load").err)
	srv := cubetest.Start(t, dbURL)
	t.Setenv("BACKEND", "cube")
	t.Setenv("CUBE_API_SECRET", srv.Secret)
	t.Setenv("CUBE_API_URL", srv.URL)
	got = runCLI(t, "", "doctor")
	assert.Regexp(t, `✓ cube answers: \d+ tables\n`, got.stdout)
	assert.NotContains(t, got.stdout, "✗ cube")
}

// TestCLIDoctorModel points doctor at an OpenAI-compatible server that
// refuses the key, then at one that answers: doctor names the setting to
// fix, without the key, and then says the model answers.
func TestCLIDoctorModel(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	const key = "doctor-test-key-of-no-known-shape"
	var refuse atomic.Bool
	refuse.Store(true)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if refuse.Load() {
			w.WriteHeader(http.StatusUnauthorized)
			// As LiteLLM's proxy does, the refusal repeats the key it got.
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: Received API Key = `+
				strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"local-model",
"choices":[{"index":0,"message":{"role":"assistant","content":"ready"},"finish_reason":"stop"}],
"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("LLM_MODEL", "local-model")
	t.Setenv("LLM_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", key)

	got := runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	assert.Contains(t, got.stdout, "✗ the model openai:local-model does not answer: ")
	assert.Contains(t, got.stdout, "Incorrect API key provided: Received API Key = [masked] (the provider refused the key: check OPENAI_API_KEY)\n")
	assert.NotContains(t, got.stdout+got.stderr, key, "the key is never shown")
	assert.Equal(t, int32(1), calls.Load(), "one call, not retried")

	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("LLM_PROVIDER", "anthropic")
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "✗ the model: new model: anthropic: missing API key: set ANTHROPIC_API_KEY\n",
		"settings that name no model it can call are not a model that does not answer")
	assert.Equal(t, int32(1), calls.Load(), "and no call is made")

	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_API_KEY", key)
	refuse.Store(false)
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "✓ the model answers: openai:local-model (one short call)\n")
	assert.NotContains(t, got.stdout, "✗ the model")
}

// README: doctor exits 1 while something is wrong. What stops serve
// before it starts is wrong: Slack half set up, MCP_* or SLACK_* out of
// range, HTTP_ADDR open without a token, an OTEL_* exporter it does not
// know, an examples file it cannot read or whose query the guard refuses
// as unsafe. doctor says so, as serve would, and changes nothing.
func TestCLIDoctorFailsOnWhatStopsServe(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	require.NoError(t, runCLI(t, "", "demo", "load").err)
	clearSlackEnv(t)
	t.Setenv("ACCESS_FILE", "")
	dir := t.TempDir()
	unsafe := filepath.Join(dir, "unsafe.yaml")
	require.NoError(t, os.WriteFile(unsafe, []byte("- question: Drop it\n  sql: DROP TABLE analytics.apps\n"), 0o600))
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("- question: How many games?\n  sql: SELECT count(*) AS games FROM analytics.apps\n"), 0o600))
	slack := fakeslack.New(t)
	slackEnv := map[string]string{"SLACK_BOT_TOKEN": fakeslack.BotToken, "SLACK_APP_TOKEN": fakeslack.AppToken, "SLACK_API_URL": slack.APIURL()}
	with := func(extra map[string]string) map[string]string {
		out := maps.Clone(slackEnv)
		maps.Copy(out, extra)
		return out
	}
	tests := []struct {
		name string
		env  map[string]string
		want string // "" when all is well
	}{
		{"all is well", with(map[string]string{"SQL_EXAMPLES": good}), ""},
		{"Slack half set up", map[string]string{"SLACK_BOT_TOKEN": fakeslack.BotToken, "SLACK_API_URL": slack.APIURL()},
			"✗ serve would not start: set SLACK_APP_TOKEN for Socket Mode or SLACK_SIGNING_SECRET for HTTP mode"},
		{"SLACK_WORKERS", with(map[string]string{"SLACK_WORKERS": "-1"}), "✗ serve would not start: SLACK_WORKERS must be 0 (share MAX_TURNS) or more, got -1"},
		{"MCP_MAX_ROWS", with(map[string]string{"MCP_MAX_ROWS": "0"}), "✗ serve would not start: MCP_MAX_ROWS"},
		{"HTTP_ADDR open", with(map[string]string{"HTTP_ADDR": "0.0.0.0:8080"}), "✗ serve would not start: HTTP_ADDR 0.0.0.0:8080 is not a loopback address"},
		{"OTEL exporter", with(map[string]string{"OTEL_TRACES_EXPORTER": "bogus"}), `✗ telemetry: OTEL_TRACES_EXPORTER: unknown exporter "bogus"`},
		{"examples file missing", with(map[string]string{"SQL_EXAMPLES": filepath.Join(dir, "none.yaml")}), "✗ examples file: "},
		{"unsafe example", with(map[string]string{"SQL_EXAMPLES": unsafe}), "✗ examples file " + unsafe + ": the guard refuses 1 of its examples"},
	}
	examples := func() (n int) {
		require.NoError(t, db.Pool().QueryRow(context.Background(), `SELECT count(*) FROM examples`).Scan(&n))
		return n
	}
	before := examples()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_WORKERS", "MCP_MAX_ROWS", "HTTP_ADDR", "OTEL_TRACES_EXPORTER", "SQL_EXAMPLES"} {
				t.Setenv(k, tt.env[k])
			}
			got := runCLI(t, "", "doctor")
			if tt.want == "" {
				require.NoError(t, got.err, "stdout: %s", got.stdout)
				assert.Contains(t, got.stdout, "✓ serve's settings (HTTP_ADDR, HTTP_TOKEN, MCP_*, SLACK_*) are usable\n")
				assert.Contains(t, got.stdout, "✓ examples file "+good+": 1 example the guard lets run\n")
				return
			}
			assert.Contains(t, got.stdout, tt.want)
			assert.ErrorIs(t, got.err, errProblems)
		})
	}
	assert.Equal(t, before, examples(), "doctor stored no example")
}
