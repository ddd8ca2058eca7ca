package access

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func load(t *testing.T) *Rules {
	t.Helper()
	r, err := Load("testdata/example.yaml")
	require.NoError(t, err)
	return r
}

// Who gets which policy, and who is refused with what sentence.
func TestAdmit(t *testing.T) {
	t.Parallel()
	r := load(t)
	tests := []struct {
		name       string
		who        Who
		wantPolicy string
		wantRefuse string
	}{
		{"a finance person anywhere allowed", Who{UserID: "UFAY", ChannelID: "C0DATA"}, "finance", ""},
		{"an analyst", Who{UserID: "UANA", ChannelID: "C0DATA"}, "analysts", ""},
		{"anyone in the finance channel", Who{UserID: "UZED", ChannelID: "C0FINANCE"}, "finance", ""},
		{"anyone else: the default", Who{UserID: "UZED", ChannelID: "C0DATA"}, "everyone", ""},
		{"a DM", Who{UserID: "UANA", ChannelID: "D0123", DM: true}, "analysts", ""},
		{"another channel", Who{UserID: "UANA", ChannelID: "C0RANDOM"}, "", "I don't answer in this channel"},
		{"the operator's command line", Who{UserID: "cli", ChannelID: "cli", Local: true}, "everyone", ""},
	}
	for _, tt := range tests {
		p, err := r.Admit(t.Context(), tt.who)
		if tt.wantRefuse != "" {
			var ref *Refusal
			require.ErrorAs(t, err, &ref, tt.name)
			assert.Contains(t, ref.Reason, tt.wantRefuse, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.wantPolicy, p.Policy(), tt.name)
	}

	strict, err := Parse([]byte("access:\n  users: [UANA]\n  direct_messages: false\npolicies:\n  - name: p\n    users: [UANA]\n    tables: [\"a.*\"]\ndefault: none\n"))
	require.NoError(t, err)
	_, err = strict.Admit(t.Context(), Who{UserID: "UBOB", ChannelID: "C1"})
	assert.ErrorContains(t, err, "You don't have access to this bot")
	_, err = strict.Admit(t.Context(), Who{UserID: "UANA", ChannelID: "D1", DM: true})
	assert.ErrorContains(t, err, "I don't answer direct messages here")
	p, err := strict.Admit(t.Context(), Who{UserID: "UANA", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "p", p.Policy())
	_, err = strict.Admit(t.Context(), Who{UserID: "cli", Local: true})
	assert.ErrorContains(t, err, "You don't have access to any data here", "default none: no policy, no data")
}

// Tables and columns by pattern; a deny always wins.
func TestPolicyAllows(t *testing.T) {
	t.Parallel()
	r := load(t)
	everyone, _ := r.Admit(t.Context(), Who{UserID: "UZED", ChannelID: "C0DATA"})
	analysts, _ := r.Admit(t.Context(), Who{UserID: "UANA", ChannelID: "C0DATA"})
	assert.True(t, everyone.AllowsTable("analytics", "orders"))
	assert.False(t, everyone.AllowsTable("analytics", "customers"))
	assert.False(t, everyone.AllowsTable("analytics", "salaries"))
	assert.True(t, analysts.AllowsTable("analytics", "customers"))
	assert.True(t, analysts.AllowsColumn("analytics", "customers", "name"))
	assert.False(t, analysts.AllowsColumn("analytics", "customers", "email"))
	assert.False(t, analysts.AllowsColumn("finance", "invoices", "amount"), "a column of a table it may not read")
	assert.False(t, analysts.AllowsTable("finance", "invoices"))
	assert.False(t, analysts.AllowsTable("analytics.x", "y"), "dots do not reach across parts")
}

// A broken file is refused at start with its line.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"default: everyone\n":                                                                     `default names "everyone", which is not a policy`,
		"policies:\n  - name: p\n    tables: [\"a.*\"]\n":                                         "default is missing",
		"policies:\n  - name: p\n    tables: [\"a\"]\ndefault: p\n":                               `line 2: policy "p" tables: "a" is not schema.table`,
		"policies:\n  - name: p\n    tables: [\"a.b\"]\n    deny_columns: [a.b]\ndefault: p\n":    `line 2: policy "p" deny_columns: "a.b" is not schema.table.column`,
		"policies:\n  - name: p\n    tables: [\"a.[\"]\ndefault: p\n":                             "syntax error in pattern",
		"policies:\n  - name: p\ndefault: p\n":                                                    `line 2: policy "p" allows no table`,
		"policies:\n  - tables: [\"a.b\"]\ndefault: none\n":                                       "line 2: a policy needs a name",
		"policies:\n  - name: p\n    tables: [a.b]\n  - name: p\n    tables: [a.c]\ndefault: p\n": `line 4: a second policy named "p"`,
		"policies:\n  - name: p\n    groups: [ghosts]\n    tables: [a.b]\ndefault: p\n":           `names the group "ghosts", which groups does not define`,
		"policies:\n  - name: p\n    tabels: [a.b]\ndefault: p\n":                                 `unknown key "tabels" on line 3`,
		"acess:\n  users: [U1]\ndefault: none\n":                                                  "field acess not found",
	}
	for in, want := range tests {
		_, err := Parse([]byte(in))
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
	_, err := Load("testdata/missing.yaml")
	assert.ErrorContains(t, err, "access file")
}

// docs/access.md's example is the one tested here.
func TestDocumentedExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/access.md")
	require.NoError(t, err)
	example, err := os.ReadFile("testdata/example.yaml")
	require.NoError(t, err)
	body := strings.SplitN(string(example), "\n", 2)[1] // without the comment line
	assert.Contains(t, string(doc), body, "docs/access.md shows testdata/example.yaml")
}

// FuzzParse: any file either parses into rules that answer without
// panicking, or is refused with an error naming the access file.
func FuzzParse(f *testing.F) {
	seed, err := os.ReadFile("testdata/example.yaml")
	require.NoError(f, err)
	f.Add(seed)
	ceiling, err := os.ReadFile("testdata/ceiling.yaml")
	require.NoError(f, err)
	f.Add(ceiling)
	f.Add([]byte("default: none\n"))
	f.Add([]byte("policies:\n  - name: p\n    tables: [\"*.*\"]\n    deny_columns: [\"*.*.email\"]\ndefault: p\n"))
	f.Add([]byte("groups:\n  g: [U1]\naccess:\n  groups: [g]\npolicies: []\ndefault: none\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "access file"), "error %q names the access file", err)
			return
		}
		for _, p := range r.AllPolicies() {
			p.MasksColumn("analytics", "orders", "id")
		}
		for _, who := range []Who{{UserID: "U1", ChannelID: "C1"}, {UserID: "U1", ChannelID: "C0GENERAL"}, {UserID: "U1", ChannelID: "D1", DM: true}, {UserID: "cli", Local: true}} {
			p, err := r.Admit(t.Context(), who)
			if err != nil {
				var ref *Refusal
				assert.ErrorAs(t, err, &ref)
				continue
			}
			p.AllowsColumn("analytics", "orders", "id")
			if sh := r.Shared(who, p); sh != nil {
				assert.Contains(t, r.AllPolicies(), sh, "a shared policy has its role")
			}
		}
	})
}

// A group may name Slack user groups: their members belong to it, as the
// directory (Slack's usergroups.users.list) says.
func TestSlackUserGroups(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
groups:
  data: [UANA, S0DATATEAM]
policies:
  - name: data
    groups: [data]
    tables: ["analytics.*"]
default: none
`))
	require.NoError(t, err)
	_, err = r.Admit(t.Context(), Who{UserID: "UBOB", ChannelID: "C1"})
	assert.Error(t, err, "no directory: a Slack user group has no members")
	var asked []context.Context
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		asked = append(asked, ctx)
		if group == "S0DATATEAM" {
			return []string{"UBOB"}, nil
		}
		return nil, nil
	})
	deadline := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC) // the asker's, never reached
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	p, err := r.Admit(ctx, Who{UserID: "UBOB", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "data", p.Policy())
	require.NotEmpty(t, asked)
	got, ok := asked[0].Deadline()
	assert.True(t, ok && got.Equal(deadline), "the directory waits on the asker's context: deadline %v", got)
	_, err = r.Admit(t.Context(), Who{UserID: "UZED", ChannelID: "C1"})
	assert.Error(t, err)
}

// When Slack cannot say who is in a user group whose members decide a
// policy, the asker is refused rather than placed under a broader one;
// only a group that could change the outcome counts.
func TestSlackUserGroupUnknown(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
groups:
  contractors: [S0CONTRACT]
  data: [S0DATA]
  everyone: [S0ALL]
policies:
  - name: alice
    users: [UALICE]
    tables: ["analytics.*"]
  - name: contractors
    groups: [contractors]
    tables: ["analytics.*"]
    deny_columns: ["analytics.customers.email"]
  - name: data
    groups: [data]
    tables: ["analytics.*", "finance.*"]
  - name: sales
    channels: [CSALES]
    tables: ["analytics.*"]
  - name: all
    tables: ["analytics.*"]
default: all
`))
	require.NoError(t, err)
	down := errors.New("usergroups.users.list: timeout")
	// directory answers from known; a group not in it is unknown.
	directory := func(known map[string][]string) Directory {
		return func(_ context.Context, group string) ([]string, error) {
			m, ok := known[group]
			if !ok {
				return nil, down
			}
			return m, nil
		}
	}
	for _, tc := range []struct {
		name       string
		known      map[string][]string
		who        Who
		wantPolicy string // "" for the unknown refusal
	}{
		{"contractors unknown: refused, not the default", map[string][]string{"S0DATA": nil},
			Who{UserID: "UBOB", ChannelID: "C1"}, ""},
		{"contractors unknown: refused, not the channel's", map[string][]string{"S0DATA": nil},
			Who{UserID: "UBOB", ChannelID: "CSALES"}, ""},
		{"named by user id before any group", nil, Who{UserID: "UALICE", ChannelID: "C1"}, "alice"},
		{"in the first group's policy: a later unknown group changes nothing", map[string][]string{"S0CONTRACT": {"UBOB"}},
			Who{UserID: "UBOB", ChannelID: "C1"}, "contractors"},
		{"in a later group's policy behind an unknown one", map[string][]string{"S0DATA": {"UBOB"}},
			Who{UserID: "UBOB", ChannelID: "C1"}, ""},
		{"every group known, in none: the default", map[string][]string{"S0CONTRACT": nil, "S0DATA": nil},
			Who{UserID: "UBOB", ChannelID: "C1"}, "all"},
		{"known empty (no scope) is no members", map[string][]string{"S0CONTRACT": {}, "S0DATA": {}},
			Who{UserID: "UBOB", ChannelID: "CSALES"}, "sales"},
		{"a named token is in no Slack group, Slack answering or not", nil,
			Who{UserID: TokenUser("ana"), ChannelID: "web"}, "all"},
		{"the web chat's user likewise", nil, Who{UserID: "web", ChannelID: "web"}, "all"},
		{"an Enterprise Grid user id is a Slack user's", nil, Who{UserID: "WBOB", ChannelID: "C1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.SetDirectory(directory(tc.known))
			p, err := r.Admit(t.Context(), tc.who)
			if tc.wantPolicy != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.wantPolicy, p.Policy())
				return
			}
			var ref *Refusal
			require.ErrorAs(t, err, &ref, "got policy %v", p)
			assert.Equal(t, "I can't check your access right now: Slack didn't answer. Try again in a minute.", ref.Reason)
			assert.ErrorIs(t, ref.Unknown, down, "the cause is kept for the log")
			assert.NotContains(t, ref.Reason, "timeout", "no internal error text for the user")
		})
	}
}

// A group whose policy is the one the asker gets anyway changes nothing:
// its members need not be known.
func TestSlackUserGroupUnknownSamePolicy(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
groups:
  data: [S0DATA]
policies:
  - name: data
    groups: [data]
    tables: ["analytics.*"]
default: data
`))
	require.NoError(t, err)
	r.SetDirectory(func(context.Context, string) ([]string, error) { return nil, errors.New("down") })
	p, err := r.Admit(t.Context(), Who{UserID: "UBOB", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "data", p.Policy())
}

// access.groups decide who may use the bot at all: an unknown group
// refuses whoever it might admit, and not whoever users names.
func TestAdmitGroupUnknown(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
access:
  users: [UALICE]
  groups: [staff]
groups:
  staff: [S0STAFF]
policies:
  - name: all
    tables: ["analytics.*"]
default: all
`))
	require.NoError(t, err)
	r.SetDirectory(func(context.Context, string) ([]string, error) { return nil, errors.New("down") })
	_, err = r.Admit(t.Context(), Who{UserID: "UBOB", ChannelID: "C1"})
	var ref *Refusal
	require.ErrorAs(t, err, &ref)
	assert.Equal(t, "I can't check your access right now: Slack didn't answer. Try again in a minute.", ref.Reason)
	p, err := r.Admit(t.Context(), Who{UserID: "UALICE", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "all", p.Policy())

	r.SetDirectory(func(context.Context, string) ([]string, error) { return nil, nil })
	_, err = r.Admit(t.Context(), Who{UserID: "UBOB", ChannelID: "C1"})
	require.ErrorAs(t, err, &ref)
	assert.Equal(t, "You don't have access to this bot. Ask whoever runs it to add you.", ref.Reason, "known empty: not a member")
	assert.Equal(t, []string{"S0STAFF"}, r.SlackGroups())
}

// Match says what each list of a policy says of a table or column on its
// own: whether tables names it exactly (no wildcard) or by a pattern.
func TestMatch(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
policies:
  - name: p
    tables: ["hr.*", "hr.v_salaries", "hr.payroll_?u", "cube.Pay"]
    deny_tables: ["hr.salaries"]
    deny_columns: ["hr.payroll_eu.amount", "cube.Pay.total"]
    mask_columns: ["hr.*.email"]
default: p
`))
	require.NoError(t, err)
	p := r.List()[0]
	tests := []struct {
		schema, table, column string
		want                  warehouse.Match
	}{
		{"hr", "v_salaries", "", warehouse.Match{Listed: true, Exact: true}},
		{"hr", "v_emails", "", warehouse.Match{Listed: true}},
		{"hr", "payroll_us", "", warehouse.Match{Listed: true}},
		{"hr", "salaries", "", warehouse.Match{Listed: true, Denied: true}},
		{"analytics", "apps", "", warehouse.Match{}},
		{"hr", "payroll_eu", "amount", warehouse.Match{Listed: true, Denied: true}},
		{"hr", "employees", "email", warehouse.Match{Listed: true, Masked: true}},
		{"other", "people", "email", warehouse.Match{}},
		{"", "Pay", "", warehouse.Match{Listed: true, Exact: true}},
		{"", "Pay", "Pay.total", warehouse.Match{Listed: true, Denied: true}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, p.Match(tt.schema, tt.table, tt.column), "%s.%s.%s", tt.schema, tt.table, tt.column)
	}
}

// docs/access.md: a person named directly wins over their group, which
// wins over the channel they ask in, whatever order the file lists the
// policies in.
func TestAdmitPrecedence(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`groups:
  analysts: [UANA, UBEN]
policies:
  - name: by_channel
    channels: [C0FINANCE]
    tables: ["finance.*"]
  - name: by_group
    groups: [analysts]
    tables: ["analytics.*"]
  - name: by_user
    users: [UANA]
    tables: ["analytics.orders"]
default: none
`))
	require.NoError(t, err)
	tests := []struct {
		name string
		who  Who
		want string
	}{
		{"named directly, in a group, in the policy's channel", Who{UserID: "UANA", ChannelID: "C0FINANCE"}, "by_user"},
		{"a group member in the policy's channel", Who{UserID: "UBEN", ChannelID: "C0FINANCE"}, "by_group"},
		{"a group member elsewhere", Who{UserID: "UBEN", ChannelID: "C0DATA"}, "by_group"},
		{"no one named, in the channel", Who{UserID: "UZED", ChannelID: "C0FINANCE"}, "by_channel"},
	}
	for _, tt := range tests {
		p, err := r.Admit(t.Context(), tt.who)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, p.Policy(), tt.name)
	}
	_, err = r.Admit(t.Context(), Who{UserID: "UZED", ChannelID: "C0DATA"})
	assert.ErrorContains(t, err, "You don't have access to any data here", "no policy names them and the default is none")
}

// twoGroups admits the members of two Slack user groups, S0FIRST listed
// before S0SECOND, under the default.
const twoGroups = `
access:
  groups: [staff]
groups:
  staff: [S0FIRST, S0SECOND]
policies:
  - name: all
    tables: ["analytics.*"]
default: all
`

// admitIn is r.Admit of who, failing the test if it has not returned by
// the time a directory that never answers would have stopped it: a guard
// against hanging, not a measure of speed.
func admitIn(t *testing.T, r *Rules, who Who) (*Policy, error) {
	t.Helper()
	type admitted struct {
		p   *Policy
		err error
	}
	done := make(chan admitted, 1)
	go func() {
		p, err := r.Admit(t.Context(), who)
		done <- admitted{p, err}
	}()
	select {
	case a := <-done:
		return a.p, a.err
	case <-time.After(30 * time.Second):
		t.Fatal("Admit has not returned: it waits on a Slack user group before asking about the next, or after one listed the asker")
		return nil, nil
	}
}

// The Slack user groups are asked about side by side: a group that lists
// the asker admits them while Slack has not answered about another one
// listed before it, whose wait is then given up.
func TestSlackUserGroupsAskedTogether(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(twoGroups))
	require.NoError(t, err)
	release := make(chan struct{}) // never closed: Slack never answers about S0FIRST
	gaveUp := make(chan error, 1)
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		if group == "S0SECOND" {
			return []string{"UBOB"}, nil
		}
		select {
		case <-release:
			return nil, nil
		case <-ctx.Done():
			gaveUp <- ctx.Err()
			return nil, ctx.Err()
		}
	})
	p, err := admitIn(t, r, Who{UserID: "UBOB", ChannelID: "C1"})
	require.NoError(t, err, "S0SECOND lists UBOB")
	assert.Equal(t, "all", p.Policy())
	select {
	case err := <-gaveUp:
		assert.ErrorIs(t, err, context.Canceled, "the wait on S0FIRST is cancelled")
	default:
		t.Fatal("the wait on S0FIRST goes on after Admit returned")
	}
}

// When no Slack user group lists the asker and several cannot be read,
// the refusal names the first the file lists, neither the first nor the
// last Slack failed on.
func TestSlackUserGroupsUnknownNamesTheFirst(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(strings.Replace(twoGroups, "[S0FIRST, S0SECOND]", "[S0FIRST, S0SECOND, S0THIRD]", 1)))
	require.NoError(t, err)
	// Slack fails on S0SECOND, then S0FIRST, then S0THIRD.
	failed := map[string]chan struct{}{"S0SECOND": make(chan struct{}), "S0FIRST": make(chan struct{}), "S0THIRD": make(chan struct{})}
	after := map[string]string{"S0FIRST": "S0SECOND", "S0THIRD": "S0FIRST"}
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		defer close(failed[group])
		if before, ok := after[group]; ok {
			select {
			case <-failed[before]:
			case <-ctx.Done():
			}
		}
		return nil, errors.New("timeout")
	})
	_, err = admitIn(t, r, Who{UserID: "UBOB", ChannelID: "C1"})
	var ref *Refusal
	require.ErrorAs(t, err, &ref)
	assert.Equal(t, "I can't check your access right now: Slack didn't answer. Try again in a minute.", ref.Reason)
	assert.EqualError(t, ref.Unknown, "members of S0FIRST: timeout", "the log names the first group in the file's order")
}

// threePolicies places the members of three Slack user groups under three
// policies, in this order; S0SHARED is named by two of them.
const threePolicies = `
groups:
  contractors: [S0CONTRACT]
  data: [S0DATA, S0SHARED]
  sales: [S0SHARED, S0SALES]
policies:
  - name: contractors
    groups: [contractors]
    tables: ["analytics.*"]
    deny_columns: ["analytics.customers.email"]
  - name: data
    groups: [data]
    tables: ["analytics.*", "finance.*"]
  - name: sales
    groups: [sales]
    tables: ["analytics.*"]
default: none
`

// The Slack user groups of every policy are asked about at once: Slack
// answers here only once all three have been asked, which a lookup of one
// policy's groups after another's would never reach. Each group is asked
// once, though two policies name S0SHARED.
func TestPolicyGroupsAskedTogether(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(threePolicies))
	require.NoError(t, err)
	var mu sync.Mutex
	asked := map[string]int{}
	allAsked := make(chan struct{})
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		mu.Lock()
		asked[group]++
		if len(asked) == 4 && asked[group] == 1 {
			close(allAsked)
		}
		mu.Unlock()
		select {
		case <-allAsked:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if group == "S0SALES" {
			return []string{"UBOB"}, nil
		}
		return []string{"UOTHER"}, nil
	})
	p, err := admitIn(t, r, Who{UserID: "UBOB", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "sales", p.Policy(), "in no group of the policies before sales")
	assert.Equal(t, map[string]int{"S0CONTRACT": 1, "S0DATA": 1, "S0SHARED": 1, "S0SALES": 1}, asked)
}

// Once the policies before the one that has the asker have answered, the
// lookups still waiting (of later policies) are given up; while one before
// it cannot be read, the asker is refused, and the log names that group.
func TestPolicyGroupsSettle(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(threePolicies))
	require.NoError(t, err)
	gaveUp := make(chan string, 4)
	never := func(ctx context.Context, group string) ([]string, error) {
		<-ctx.Done()
		gaveUp <- group
		return nil, ctx.Err()
	}
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		switch group {
		case "S0CONTRACT":
			return nil, nil
		case "S0DATA":
			return []string{"UBOB"}, nil
		}
		return never(ctx, group) // S0SHARED and S0SALES: Slack never answers
	})
	p, err := admitIn(t, r, Who{UserID: "UBOB", ChannelID: "C1"})
	require.NoError(t, err)
	assert.Equal(t, "data", p.Policy())
	close(gaveUp)
	var given []string
	for g := range gaveUp {
		given = append(given, g)
	}
	assert.ElementsMatch(t, []string{"S0SHARED", "S0SALES"}, given, "the waits of groups that no longer count end before Admit returns")

	down := errors.New("timeout")
	r.SetDirectory(func(ctx context.Context, group string) ([]string, error) {
		switch group {
		case "S0CONTRACT":
			return nil, down
		case "S0SALES":
			return []string{"UBOB"}, nil
		}
		return never(ctx, group)
	})
	gaveUp = make(chan string, 4)
	_, err = admitIn(t, r, Who{UserID: "UBOB", ChannelID: "C1"})
	var ref *Refusal
	require.ErrorAs(t, err, &ref, "contractors, before sales, could not be read: it may have denied a column")
	assert.EqualError(t, ref.Unknown, "members of S0CONTRACT: timeout")
}

// A process with no directory (no Slack connection: the MCP server over
// stdio, `context --user`) cannot tell who is in a Slack user group: a
// Slack user whose policy hangs on one is refused, saying why, rather than
// placed under the broader default; whoever else is decided as before.
func TestNoDirectory(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`
groups:
  contractors: [S0CONTRACT]
policies:
  - name: alice
    users: [UALICE]
    tables: ["analytics.*"]
  - name: contractors
    groups: [contractors]
    tables: ["analytics.*"]
    deny_columns: ["analytics.customers.email"]
  - name: all
    tables: ["analytics.*"]
default: all
`))
	require.NoError(t, err)
	_, err = r.Admit(t.Context(), Who{UserID: "UCONTRACTOR", ChannelID: "mcp"})
	var ref *Refusal
	require.ErrorAs(t, err, &ref, "not the default's columns")
	assert.Equal(t, "I can't check your access here: it depends on a Slack user group, and this server has no Slack connection to read who is in it. Ask whoever runs this bot.", ref.Reason)
	assert.ErrorIs(t, ref.Unknown, ErrNoDirectory)
	assert.EqualError(t, ref.Unknown, "members of S0CONTRACT: no Slack connection to read its members (SLACK_BOT_TOKEN)")

	for who, want := range map[string]string{"UALICE": "alice", TokenUser("ana"): "all", "cli": "all"} {
		p, err := r.Admit(t.Context(), Who{UserID: who, ChannelID: "mcp"})
		require.NoError(t, err, who)
		assert.Equal(t, want, p.Policy(), who)
	}
}
