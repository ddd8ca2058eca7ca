package slackapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/slack-go/slack"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// ordersScript answers "Show my orders" with a query that tries to widen
// itself (OR 1 = 1): only the database's row-level security keeps the
// answer to the asker's rows.
var ordersScript = bottest.DemoScript(`  - step: classify
    match: '(?im)^Question: .*my orders'
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: generate_sql
    match: '(?im)^Question: .*my orders'
    reply: '{"sql": "SELECT order_id, customer_email FROM analytics.slack_scoped_orders WHERE order_id > 0 OR 1 = 1 ORDER BY order_id", "assumptions": [], "explanation": "Lists orders."}'
  - step: interpret
    match: '(?im)^Question: .*my orders'
    reply: '{"answer": "Here are your orders."}'
`)

// TestRowLevelSecurityByEmail: through the fake Slack, each person's
// question runs with their Slack address (users.info, looked up once and
// cached), and the table's row-level security policy shows them their own
// rows only.
func TestRowLevelSecurityByEmail(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(ordersScript))
	_, err := h.bot.DB().Pool().Exec(context.Background(), `
		CREATE TABLE IF NOT EXISTS analytics.slack_scoped_orders (order_id int, customer_email text);
		TRUNCATE analytics.slack_scoped_orders;
		INSERT INTO analytics.slack_scoped_orders VALUES (101, 'ana@example.com'), (102, 'ana@example.com'), (203, 'bob@example.com');
		GRANT SELECT ON analytics.slack_scoped_orders TO analyticsbot_reader;
		ALTER TABLE analytics.slack_scoped_orders ENABLE ROW LEVEL SECURITY;
		DROP POLICY IF EXISTS own_orders ON analytics.slack_scoped_orders;
		CREATE POLICY own_orders ON analytics.slack_scoped_orders FOR SELECT
			USING (customer_email = (SELECT analyticsbot_identity.user_email()))`)
	require.NoError(t, err)
	h.slack.SetUserEmail(user, "Ana@Example.com")

	ch := channelID("CRLSMAIL")
	for i, ts := range []string{"1700000401.000100", "1700000402.000100"} {
		h.mention(ch, ts, "", "Show my orders")
		got := says(h.answerIn(ch, ts, "Here are your orders"))
		assert.Contains(t, got, "102", "question %d: Ana's orders", i+1)
		assert.NotContains(t, got, "203", "question %d: never Bob's, OR 1 = 1 notwithstanding", i+1)
	}
	assert.Len(t, h.slack.Calls("users.info"), 1, "the address is looked up once, then cached")
}

// TestForgedIdentityInSlack: through the fake Slack, queries that claim
// to be Bob with set_config before they read (in a CTE, a subquery, WHERE,
// with every setting and the transaction's own signature) are refused by
// the guard; with the guard taken out, each runs as written and Ana still
// reads her own orders at most: the row-level security policy asks the
// signed identity (docs/security.md), which a query cannot set.
func TestForgedIdentityInSlack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, needDB(t))
	require.NoError(t, err)
	defer pool.Close()
	// Its own table: TestRowLevelSecurityByEmail empties and fills its own.
	_, err = pool.Exec(ctx, `
		CREATE TABLE IF NOT EXISTS analytics.slack_forged_orders (order_id int, customer_email text);
		TRUNCATE analytics.slack_forged_orders;
		INSERT INTO analytics.slack_forged_orders VALUES (9101, 'ana@example.com'), (9102, 'ana@example.com'), (9203, 'bob@example.com');
		GRANT SELECT ON analytics.slack_forged_orders TO analyticsbot_reader;
		ALTER TABLE analytics.slack_forged_orders ENABLE ROW LEVEL SECURITY;
		DROP POLICY IF EXISTS own_orders ON analytics.slack_forged_orders;
		CREATE POLICY own_orders ON analytics.slack_forged_orders FOR SELECT
			USING (customer_email = (SELECT analyticsbot_identity.user_email()))`)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte("policies:\n  - name: all\n    tables: [\"analytics.*\"]\ndefault: all\n"), 0o600))
	rules := bottest.DemoScript(bottest.ForgeryRules("analytics.slack_forged_orders", "bob@example.com"))
	for _, guard := range []bool{true, false} {
		opts := []harnessOption{withScript(rules), withBotConfig(func(c *bot.Config) { c.AccessFile = path })}
		want := "Ask a question about the data instead."
		if !guard {
			opts, want = append(opts, withoutGuard()), "Here are the forged orders"
		}
		h := start(t, opts...)
		h.slack.SetUserEmail(user, "Ana@Example.com")
		ch := channelID("CFORGED")
		for i := range bottest.Forgeries() {
			ts := fmt.Sprintf("1700000%03d.000100", 700+i)
			h.mention(ch, ts, "", bottest.ForgeryQuestion(i))
			got := says(h.answerIn(ch, ts, want))
			assert.NotContains(t, got, "9203", "%s (guard %v): never Bob's order", bottest.ForgeryQuestion(i), guard)
		}
	}
}

// A workspace that refuses users.info (the app lacks the scope) is not
// asked again; questions are answered without an address.
func TestEmailLookupRefused(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	h := start(t, withLog(slog.New(slog.NewTextHandler(&logs, nil))))
	h.slack.ErrorNext("users.info", 1, "missing_scope")
	ch := channelID("CNOSCOPE")
	for _, ts := range []string{"1700000411.000100", "1700000412.000100"} {
		h.mention(ch, ts, "", q2018)
		h.answerIn(ch, ts, answer18)
	}
	calls := h.slack.Calls("users.info")
	require.Len(t, calls, 1, "asked once, refused, not asked again")
	assert.True(t, strings.HasPrefix(calls[0].Args.Get("user"), "U"), "asked about the user")
	// docs/security.md: the bot logs that once.
	assert.Equal(t, 1, strings.Count(logs.String(), "users.info refused; row-level security sees no addresses"), "logged once: %s", logs.String())
}

// MissingScopes reads the token's scopes as Slack lists them.
func TestMissingScopes(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	cfg := Config{BotToken: fakeslack.BotToken, APIURL: fake.APIURL()}
	missing, err := MissingScopes(t.Context(), cfg)
	require.NoError(t, err)
	assert.Empty(t, missing, "the fake grants the manifest's scopes")

	fake.SetScopes("chat:write", "commands")
	missing, err = MissingScopes(t.Context(), cfg)
	require.NoError(t, err)
	assert.Contains(t, missing, "users:read.email")
	assert.NotContains(t, missing, "chat:write")

	_, err = MissingScopes(t.Context(), Config{BotToken: "xoxb-wrong", APIURL: fake.APIURL()})
	assert.ErrorContains(t, err, "auth.test: invalid_auth")
}

// countingUsers answers users.info once release is closed, counting calls.
// burst calls call from n goroutines at once while Slack holds the first
// call (calls counts the calls Slack gets; closing release lets them
// answer), and returns what each got.
func burst[T any](n int, calls *atomic.Int32, release chan struct{}, call func() T) []T {
	var wg sync.WaitGroup
	got := make([]T, n)
	for i := range got {
		wg.Go(func() { got[i] = call() })
	}
	for calls.Load() < 1 {
		runtime.Gosched()
	}
	for range 1000 { // every caller reaches the call before it ends
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	return got
}

type countingUsers struct {
	calls   atomic.Int32
	release chan struct{}
}

func (c *countingUsers) GetUserInfoContext(ctx context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	c.calls.Add(1)
	<-c.release
	u := &slack.User{ID: user}
	u.Profile.Email = strings.ToLower(user) + "@example.com"
	return u, nil
}

func (c *countingUsers) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return nil, nil
}

// A burst of one person's messages asks Slack for their address once, not
// once each; every message gets it.
func TestEmailLookedUpOncePerBurst(t *testing.T) {
	t.Parallel()
	api := &countingUsers{release: make(chan struct{})}
	p := &people{api: api, now: time.Now, log: func(string, ...any) {}, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}
	got := burst(20, &api.calls, api.release, func() string { return p.email(context.Background(), "UBURST") })
	assert.EqualValues(t, 1, api.calls.Load(), "one users.info for the burst")
	for _, e := range got {
		assert.Equal(t, "uburst@example.com", e)
	}
}

// groupsAPI answers usergroups.users.list with members, or err, counting
// calls.
type groupsAPI struct {
	mu      sync.Mutex
	members []string
	err     error
	calls   int
}

func (g *groupsAPI) GetUserInfoContext(context.Context, string, ...slack.GetUserInfoOption) (*slack.User, error) {
	return nil, errors.New("not asked here")
}

func (g *groupsAPI) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	return slices.Clone(g.members), g.err
}

func (g *groupsAPI) set(members []string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.members, g.err = members, err
}

// docs/access.md: a Slack user group's members are asked at most every ten
// minutes per group; past ten minutes the question gets the members read
// before while Slack is asked again, and the next one the new members.
// Without the usergroups:read scope a group has no members, and the bot
// logs that once.
func TestUserGroupMembersAskedEveryTenMinutes(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{members: []string{"UANA"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var logged []string
	p := &people{api: api, now: func() time.Time { return now }, log: func(msg string, _ ...any) { logged = append(logged, msg) },
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"))
	api.set([]string{"UANA", "UBEN"}, nil)
	now = now.Add(10*time.Minute - time.Second)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "within ten minutes: the members asked before")
	assert.Equal(t, 1, api.calls)
	now = now.Add(time.Second)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "after ten minutes: the members asked before, while Slack is asked again")
	p.wait()
	assert.Equal(t, 2, api.calls)
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "then the new members")

	api.set(nil, errors.New("missing_scope"))
	now = now.Add(10 * time.Minute)
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "asked again: the members asked before")
	p.wait()
	assert.Empty(t, known(t, p, "S0DATA"), "the scope is gone: no members")
	now = now.Add(time.Hour)
	assert.Empty(t, known(t, p, "S0OTHER"))
	assert.Empty(t, known(t, p, "S0DATA"), "nor the members it had before the scope went: they would stay admitted for good")
	assert.Equal(t, 3, api.calls, "refused once, not asked again")
	require.Len(t, logged, 1, "logged once: %q", logged)
	assert.Contains(t, logged[0], "usergroups.users.list refused")
}

// docs/access.md: when Slack cannot be asked, a user group's members read
// before count for up to an hour after they were read; then who is in the
// group is unknown until Slack answers again.
func TestUserGroupMembersThroughAnOutage(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{members: []string{"UANA"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	require.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"))
	api.set(nil, errors.New("slack: service unavailable"))
	now = now.Add(59 * time.Minute)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "within the hour: the members read before")
	p.wait()
	assert.Equal(t, 2, api.calls, "asked in the background, failed")
	now = now.Add(time.Minute)
	assert.ErrorIs(t, unknown(p, "S0DATA"), errNoMembers, "an hour after they were read: no members")
	assert.Equal(t, 3, api.calls, "asked a minute after it failed, waited for, failed")
	api.set([]string{"UBEN"}, nil)
	now = now.Add(time.Minute)
	assert.Equal(t, []string{"UBEN"}, known(t, p, "S0DATA"), "Slack answers again, asked a minute after it failed")
}

// known is what p says of group's members, which must be known.
func known(t *testing.T, p *people, group string) []string {
	t.Helper()
	m, err := p.members(t.Context(), group)
	assert.NoError(t, err, "members of %s", group)
	return m
}

// unknown is why p cannot say who is in group.
func unknown(p *people, group string) error {
	_, err := p.members(context.Background(), group)
	return err
}

// blockingGroups answers usergroups.users.list with members once release
// is closed, counting calls.
type blockingGroups struct {
	calls   atomic.Int32
	release chan struct{}
}

func (b *blockingGroups) GetUserInfoContext(context.Context, string, ...slack.GetUserInfoOption) (*slack.User, error) {
	return nil, errors.New("not asked here")
}

func (b *blockingGroups) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	b.calls.Add(1)
	<-b.release
	return []string{"UANA"}, nil
}

// A burst of questions whose user group's members have expired asks Slack
// for them once, not once each; every question gets them.
func TestUserGroupListedOncePerBurst(t *testing.T) {
	t.Parallel()
	api := &blockingGroups{release: make(chan struct{})}
	p := &people{api: api, now: time.Now, log: func(string, ...any) {}, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}
	got := burst(20, &api.calls, api.release, func() []string { return known(t, p, "S0DATA") })
	assert.EqualValues(t, 1, api.calls.Load(), "one usergroups.users.list for the burst")
	for _, m := range got {
		assert.Equal(t, []string{"UANA"}, m)
	}
}

// docs/access.md: after Slack fails to list a user group's members, it is
// not asked about that group again for a minute; meanwhile the members
// read before count (within the hour), else none, and the failure is
// logged once. An answer ends the wait.
func TestUserGroupNotAskedForAMinuteAfterAFailure(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{members: []string{"UANA"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var logged []string
	p := &people{api: api, now: func() time.Time { return now }, log: func(msg string, _ ...any) { logged = append(logged, msg) },
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}
	down := errors.New("slack: service unavailable")

	require.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"))
	api.set(nil, down)
	now = now.Add(10 * time.Minute)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "past ten minutes: the members read before")
	p.wait()
	assert.Equal(t, 2, api.calls, "Slack asked in the background, fails")
	for range 5 {
		now = now.Add(10 * time.Second)
		assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "within the minute: the members read before")
	}
	assert.Equal(t, 2, api.calls, "within the minute: Slack not asked")
	assert.Len(t, logged, 1, "one failure, logged once: %q", logged)

	now = now.Add(10 * time.Second)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "a minute on: the members read before")
	p.wait()
	assert.Equal(t, 3, api.calls, "a minute on: Slack asked again, fails again")
	assert.Len(t, logged, 2, "the second failure logged")

	api.set([]string{"UANA", "UBEN"}, nil)
	now = now.Add(time.Minute)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "a minute on: the members read before")
	p.wait()
	assert.Equal(t, 4, api.calls, "a minute on: Slack asked again")
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "Slack answered: the new members")
	now = now.Add(10*time.Minute - time.Second)
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "an answer is kept ten minutes again")
	assert.Equal(t, 4, api.calls)
	api.set(nil, down)
	now = now.Add(time.Second)
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "fails after the answer: the new members count")
	p.wait()
	assert.Equal(t, 5, api.calls, "the answer ended the wait: asked as soon as the members expire")
	assert.Len(t, logged, 3, "the third failure logged")
}

// A user group never listed whose listing fails has unknown members, and
// Slack is not asked about it again for five seconds; nor is an hour-old
// listing's membership served while it waits.
func TestUserGroupWithoutMembersWhileSlackIsNotAsked(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{err: errors.New("context deadline exceeded")}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers, "never listed, Slack fails: no members")
	now = now.Add(5*time.Second - time.Millisecond)
	assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers)
	assert.Equal(t, 1, api.calls, "within five seconds: Slack not asked")
	assert.ErrorIs(t, unknown(p, "S0OTHER"), errNoMembers, "another group is asked about on its own")
	assert.Equal(t, 2, api.calls)
	api.set([]string{"UANA"}, nil)
	now = now.Add(time.Millisecond)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0NEW"), "five seconds on: asked again")
	assert.Equal(t, 3, api.calls)

	api.set(nil, errors.New("context deadline exceeded"))
	now = now.Add(time.Hour - 30*time.Second)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0NEW"), "fails within the hour: the members read before")
	p.wait()
	now = now.Add(30 * time.Second)
	assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers, "an hour after they were read, though Slack is not asked: no members")
	assert.Equal(t, 4, api.calls)
}

// A question whose context ends while Slack lists its user group waits no
// longer: it gets what counts without the listing (here nothing: unknown). The
// listing goes on and is kept for the next question.
func TestUserGroupListingOutlivesAnEndedQuestion(t *testing.T) {
	t.Parallel()
	api := &blockingGroups{release: make(chan struct{})}
	p := &people{api: api, now: time.Now, log: func(string, ...any) {}, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan error)
	go func() {
		_, err := p.members(ctx, "S0DATA")
		got <- err
	}()
	for api.calls.Load() < 1 {
		runtime.Gosched()
	}
	cancel()
	assert.ErrorIs(t, <-got, errNoMembers, "the question ended before Slack answered: unknown")
	close(api.release)
	// Still under way, the listing is joined; done, it is kept.
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "the listing went on")
	assert.EqualValues(t, 1, api.calls.Load(), "asked once")
}

// heldGroups answers usergroups.users.list with members, one call for
// each token sent on release, counting calls and recording how long each
// call was given.
type heldGroups struct {
	release chan struct{}

	mu      sync.Mutex
	members []string
	calls   int
	given   []time.Duration // -1 for a call without a deadline
}

func (h *heldGroups) GetUserInfoContext(context.Context, string, ...slack.GetUserInfoOption) (*slack.User, error) {
	return nil, errors.New("not asked here")
}

func (h *heldGroups) GetUserGroupMembersContext(ctx context.Context, _ string, _ ...slack.GetUserGroupMembersOption) ([]string, error) {
	given := time.Duration(-1)
	if d, ok := ctx.Deadline(); ok {
		given = time.Until(d)
	}
	h.mu.Lock()
	h.calls++
	h.given = append(h.given, given)
	h.mu.Unlock()
	<-h.release
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.members), nil
}

func (h *heldGroups) set(members []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.members = members
}

func (h *heldGroups) count() (int, []time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls, slices.Clone(h.given)
}

// docs/access.md: past ten minutes a user group's members read before are
// returned while Slack has not answered (a slash command's
// acknowledgement waits on no call), and one listing in the background,
// not ended by the questions' own end, reads them again for the next
// question. A group never read waits for its listing. Each call to Slack
// is given slackLookupTimeout at most.
func TestUserGroupListedAgainInTheBackground(t *testing.T) {
	t.Parallel()
	api := &heldGroups{release: make(chan struct{}, 1), members: []string{"UANA"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	api.release <- struct{}{}
	require.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "never read: waits for Slack's answer")
	api.set([]string{"UANA", "UBEN"})
	now = now.Add(10 * time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	for i := range 5 {
		// Slack holds the listing: a question that waited on it would
		// never return.
		m, err := p.members(ctx, "S0DATA")
		assert.NoError(t, err)
		assert.Equal(t, []string{"UANA"}, m, "question %d past ten minutes, Slack not yet answering: the members read before", i+1)
	}
	cancel() // the questions have their members and end
	api.release <- struct{}{}
	p.wait()
	calls, given := api.count()
	assert.Equal(t, 2, calls, "one listing in the background for the five questions")
	assert.Equal(t, []string{"UANA", "UBEN"}, known(t, p, "S0DATA"), "the listing outlived the questions: the new members")
	calls, _ = api.count()
	assert.Equal(t, 2, calls, "the new members are kept ten minutes")
	for i, g := range given {
		assert.True(t, g > 0 && g <= slackLookupTimeout, "call %d given %v, want at most %v", i+1, g, slackLookupTimeout)
	}
}

// usersAPI answers users.info with an address and a time zone, counting
// calls.
type usersAPI struct {
	mu        sync.Mutex
	email, tz string
	err       error
	calls     int
}

func (u *usersAPI) GetUserInfoContext(_ context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls++
	if u.err != nil {
		return nil, u.err
	}
	r := &slack.User{ID: user, TZ: u.tz}
	r.Profile.Email = u.email
	return r, nil
}

func (u *usersAPI) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return nil, errors.New("not asked here")
}

func (u *usersAPI) set(email, tz string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.email, u.tz = email, tz
}

func (u *usersAPI) fail(err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.err = err
}

func (u *usersAPI) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls
}

// docs/security.md, docs/slack.md: a person's address and time zone
// (users.info) are kept an hour; the first question an hour or more after
// they were read waits for Slack and gets the new ones.
func TestUserAddressCachedForAnHour(t *testing.T) {
	t.Parallel()
	api := &usersAPI{email: "Ana@Example.com", tz: "Europe/Paris"}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"), "lower case")
	assert.Equal(t, "Europe/Paris", p.timeZone(t.Context(), "UANA"))
	assert.Equal(t, 1, api.calls, "address and time zone from one call")
	api.set("ana.new@example.com", "America/New_York")
	now = now.Add(time.Hour - time.Second)
	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"), "within the hour: the address read before")
	assert.Equal(t, "Europe/Paris", p.timeZone(t.Context(), "UANA"))
	assert.Equal(t, 1, api.calls, "within the hour: Slack not asked")
	now = now.Add(time.Second)
	assert.Equal(t, "ana.new@example.com", p.email(t.Context(), "UANA"), "an hour on: the new address")
	assert.Equal(t, "America/New_York", p.timeZone(t.Context(), "UANA"))
	assert.Equal(t, 2, api.calls, "an hour on: asked again, once")
}

// docs/security.md, docs/slack.md: through an outage of Slack's, the
// address read before counts for up to a day, Slack is asked at most once
// a minute, and the failure is logged each time it is asked.
func TestUserAddressThroughAnOutage(t *testing.T) {
	t.Parallel()
	api := &usersAPI{email: "ana@example.com", tz: "Europe/Paris"}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var logged []string
	var mu sync.Mutex
	p := &people{api: api, now: func() time.Time { return now }, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{},
		log: func(msg string, _ ...any) { mu.Lock(); logged = append(logged, msg); mu.Unlock() }}

	require.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"))
	api.fail(errors.New("service_unavailable"))
	now = now.Add(time.Hour)
	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"), "Slack failing: the address read before")
	assert.Equal(t, "Europe/Paris", p.timeZone(t.Context(), "UANA"))
	assert.Equal(t, 2, api.count(), "asked once; the time zone comes from the same failure")
	now = now.Add(time.Minute - time.Second)
	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"))
	assert.Equal(t, 2, api.count(), "within a minute of the failure: Slack not asked")
	now = now.Add(time.Second)
	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"))
	assert.Equal(t, 3, api.count(), "a minute on: asked again")
	mu.Lock()
	assert.Len(t, logged, 2, "each failed call logged once")
	mu.Unlock()

	// A day after it was read, the address no longer counts.
	now = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC).Add(-time.Second)
	assert.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"), "just under a day: the address read before")
	now = now.Add(time.Second)
	assert.Empty(t, p.email(t.Context(), "UANA"), "a day after it was read: no address")
	assert.Empty(t, p.timeZone(t.Context(), "UANA"))
	calls := api.count()
	assert.Empty(t, p.email(t.Context(), "UANA"))
	assert.Equal(t, calls, api.count(), "still not asked within a minute of the last failure")

	api.fail(nil)
	api.set("ana.new@example.com", "America/New_York")
	now = now.Add(time.Minute)
	assert.Equal(t, "ana.new@example.com", p.email(t.Context(), "UANA"), "Slack back: the new address")
	assert.Equal(t, "America/New_York", p.timeZone(t.Context(), "UANA"))
	assert.Equal(t, calls+1, api.count(), "and kept an hour")

	// A user never read has none while Slack fails.
	api.fail(errors.New("service_unavailable"))
	assert.Empty(t, p.email(t.Context(), "UBEN"), "never read, Slack failing: no address")
}

// The scope taken away: nobody has an address, the ones read before
// included, and Slack is not asked again.
func TestUserAddressWithoutTheScope(t *testing.T) {
	t.Parallel()
	api := &usersAPI{email: "ana@example.com", tz: "Europe/Paris"}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	require.Equal(t, "ana@example.com", p.email(t.Context(), "UANA"))
	require.Equal(t, "ana@example.com", p.email(t.Context(), "UBEN"))
	api.fail(errors.New("missing_scope"))
	now = now.Add(time.Hour)
	assert.Empty(t, p.email(t.Context(), "UANA"), "refused: no address")
	assert.Empty(t, p.email(t.Context(), "UBEN"), "nor the one read before the scope went, though within its hour")
	assert.Equal(t, 3, api.count(), "not asked again")
}

// Stopping, no listing starts in the background: the members read before
// serve until the end, and none can be added while stop waits.
func TestUserGroupNotListedAgainWhileStopping(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{members: []string{"UANA"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	require.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"))
	p.stop()
	now = now.Add(10 * time.Minute)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0DATA"), "past ten minutes while stopping: the members read before")
	p.wait()
	api.mu.Lock()
	defer api.mu.Unlock()
	assert.Equal(t, 1, api.calls, "no listing in the background once stopping")
}

// docs/access.md: a user group never listed whose listing fails (at
// start, say) is asked about again after 5 seconds, then 10, 20 and 40,
// then every minute (groupRetryFirst doubled up to groupRetry): whoever's
// access hangs on it is refused meanwhile. Once listed, a failure waits
// the minute, the members read before counting.
func TestUserGroupNeverListedAskedAgainSooner(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{err: errors.New("slack: service unavailable")}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var retries []any
	p := &people{api: api, now: func() time.Time { return now }, log: func(_ string, args ...any) {
		for i := 0; i+1 < len(args); i += 2 {
			if args[i] == "retry_in" {
				retries = append(retries, args[i+1])
			}
		}
	}, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers, "the first listing fails")
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute} {
		calls := api.calls
		now = now.Add(wait - time.Millisecond)
		assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers)
		assert.Equal(t, calls, api.calls, "failure %d: not asked within %v", i+1, wait)
		now = now.Add(time.Millisecond)
		assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers)
		assert.Equal(t, calls+1, api.calls, "failure %d: asked again after %v", i+1, wait)
	}
	assert.Equal(t, []any{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute, time.Minute}, retries,
		"each failure logs when Slack is asked again")

	api.set([]string{"UANA"}, nil)
	now = now.Add(time.Minute)
	readAt := now
	require.Equal(t, []string{"UANA"}, known(t, p, "S0NEW"), "Slack answers")
	api.set(nil, errors.New("slack: service unavailable"))
	now = now.Add(10 * time.Minute)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0NEW"), "listed before: the members read before")
	p.wait()
	calls := api.calls
	now = now.Add(time.Minute - time.Millisecond)
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0NEW"))
	assert.Equal(t, calls, api.calls, "listed before: not asked for a minute after a failure, five seconds or not")
	now = now.Add(time.Millisecond)
	known(t, p, "S0NEW")
	p.wait()
	assert.Equal(t, calls+1, api.calls, "a minute on: asked again")

	// The outage goes on past the hour the members read before count:
	// the group's askers are refused now, so it is asked about sooner
	// again, as one never listed is.
	now = readAt.Add(groupStale)
	assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers, "read an hour ago: unknown, and Slack still fails")
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second} {
		calls := api.calls
		now = now.Add(wait - time.Millisecond)
		assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers)
		assert.Equal(t, calls, api.calls, "past the hour, failure %d: not asked within %v", i+1, wait)
		now = now.Add(time.Millisecond)
		assert.ErrorIs(t, unknown(p, "S0NEW"), errNoMembers)
		assert.Equal(t, calls+1, api.calls, "past the hour, failure %d: asked again after %v, not a minute", i+1, wait)
	}
}

// docs/access.md: a user group id Slack does not know (no_such_subteam:
// mistyped, or the group deleted) is not an outage: the group has no
// members, which is known, and the bot logs a warning naming it once per
// listing; it is listed again after ten minutes, like any answer.
func TestUserGroupThatDoesNotExist(t *testing.T) {
	t.Parallel()
	api := &groupsAPI{err: slack.SlackErrorResponse{Err: "no_such_subteam"}}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var logged []string
	p := &people{api: api, now: func() time.Time { return now }, log: func(msg string, args ...any) { logged = append(logged, fmt.Sprint(append([]any{msg}, args...)...)) },
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	for range 3 {
		assert.Empty(t, known(t, p, "S0TYPO"), "no such group: no members, and no error")
	}
	assert.Equal(t, 1, api.calls, "listed once")
	require.Len(t, logged, 1, "one warning for the listing: %q", logged)
	assert.Contains(t, logged[0], "S0TYPO", "the warning names the group")
	assert.Contains(t, logged[0], "no user group has this id")

	api.set([]string{"UANA"}, nil) // the group is made
	now = now.Add(10 * time.Minute)
	known(t, p, "S0TYPO")
	p.wait()
	assert.Equal(t, []string{"UANA"}, known(t, p, "S0TYPO"), "ten minutes on: listed again")
}

// A scheduled run's owner (current): the address read within the hour,
// as a question's; once it is an hour old and Slack fails, none, where a
// question would take the old one for up to a day; without the scope, no
// address and no error, as a question.
func TestScheduledOwnerAddress(t *testing.T) {
	t.Parallel()
	api := &usersAPI{email: "ana@example.com"}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	p := &people{api: api, now: func() time.Time { return now }, log: func(string, ...any) {},
		emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}

	c, err := p.current(t.Context(), "UANA")
	require.NoError(t, err)
	assert.Equal(t, "ana@example.com", c.email)
	api.set("ana.new@example.com", "")
	now = now.Add(time.Hour - time.Second)
	c, err = p.current(t.Context(), "UANA")
	require.NoError(t, err)
	assert.Equal(t, "ana@example.com", c.email, "within the hour: the address read, as a question's")
	now = now.Add(time.Second)
	c, err = p.current(t.Context(), "UANA")
	require.NoError(t, err)
	assert.Equal(t, "ana.new@example.com", c.email, "an hour on: Slack's new address")

	api.fail(errors.New("service_unavailable"))
	now = now.Add(time.Hour)
	assert.Equal(t, "ana.new@example.com", p.email(t.Context(), "UANA"), "a question takes the address read before")
	_, err = p.current(t.Context(), "UANA")
	assert.ErrorIs(t, err, errNotCurrent, "a scheduled run does not")

	api.fail(errors.New("missing_scope"))
	now = now.Add(time.Minute)
	c, err = p.current(t.Context(), "UANA")
	require.NoError(t, err, "without the scope: as a question")
	assert.Empty(t, c.email)
}
