package access

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadCeiling(t *testing.T) *Rules {
	t.Helper()
	r, err := Load("testdata/ceiling.yaml")
	require.NoError(t, err)
	return r
}

// Who gets which ceiling over their policy: in the channel with one, each
// policy but the ceiling's own is capped by a policy of its own; nothing
// is capped elsewhere, in a direct message or on the command line.
func TestShared(t *testing.T) {
	t.Parallel()
	r := loadCeiling(t)
	tests := []struct {
		name        string
		who         Who
		wantCeiling string
		wantShared  string
	}{
		{"an analyst in the ceiling's channel", Who{UserID: "UANA", ChannelID: "C0GENERAL"}, "everyone", "analysts∩everyone"},
		{"finance in the ceiling's channel", Who{UserID: "UFAY", ChannelID: "C0GENERAL"}, "everyone", "finance∩everyone"},
		{"the ceiling's own policy: nothing to cap", Who{UserID: "UZED", ChannelID: "C0GENERAL"}, "everyone", ""},
		{"another channel", Who{UserID: "UANA", ChannelID: "C0DATA"}, "", ""},
		{"a direct message", Who{UserID: "UANA", ChannelID: "C0GENERAL", DM: true}, "", ""},
		{"the command line", Who{UserID: "cli", ChannelID: "C0GENERAL", Local: true}, "", ""},
		{"the web chat", Who{UserID: "web", ChannelID: "web"}, "", ""},
	}
	for _, tt := range tests {
		p, err := r.Admit(t.Context(), Who{UserID: tt.who.UserID, ChannelID: "C0DATA"})
		require.NoError(t, err, tt.name)
		gotCeiling, gotShared := "", ""
		if c := r.Ceiling(tt.who); c != nil {
			gotCeiling = c.Policy()
		}
		if s := r.Shared(tt.who, p); s != nil {
			gotShared = s.Policy()
		}
		assert.Equal(t, tt.wantCeiling, gotCeiling, "%s: ceiling", tt.name)
		assert.Equal(t, tt.wantShared, gotShared, "%s: shared policy", tt.name)
	}
	var names []string
	for _, p := range r.AllPolicies() {
		names = append(names, p.Policy())
	}
	assert.Equal(t, []string{"finance", "analysts", "everyone", "finance∩everyone", "analysts∩everyone"}, names,
		"every policy a query may run under, each to have its role")
	assert.Equal(t, []string{"finance", "analysts", "everyone"}, r.Policies(), "the file's own policies")
}

// A policy within a ceiling allows the tables and columns both allow and
// masks what either masks.
func TestWithin(t *testing.T) {
	t.Parallel()
	r := loadCeiling(t)
	analysts, _ := r.Admit(t.Context(), Who{UserID: "UANA", ChannelID: "C0DATA"})
	shared := r.Shared(Who{UserID: "UANA", ChannelID: "C0GENERAL"}, analysts)
	require.NotNil(t, shared)
	type verdict struct{ table, column, masked bool }
	tests := []struct {
		name                  string
		schema, table, column string
		analysts, shared      verdict
	}{
		{"a table both allow", "analytics", "orders", "amount", verdict{true, true, false}, verdict{true, true, false}},
		{"a table only the asker may read", "analytics", "developers", "name", verdict{true, true, false}, verdict{false, false, false}},
		{"a table neither may read", "finance", "invoices", "amount", verdict{false, false, false}, verdict{false, false, false}},
		{"a column both deny", "analytics", "customers", "email", verdict{true, false, false}, verdict{true, false, false}},
		{"a column the asker masks", "analytics", "customers", "name", verdict{true, true, true}, verdict{true, true, true}},
		{"a column the ceiling masks", "analytics", "customers", "city", verdict{true, true, false}, verdict{true, true, true}},
		{"a column neither masks", "analytics", "customers", "id", verdict{true, true, false}, verdict{true, true, false}},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			p    *Policy
			want verdict
		}{{analysts, tt.analysts}, {shared, tt.shared}} {
			got := verdict{c.p.AllowsTable(tt.schema, tt.table), c.p.AllowsColumn(tt.schema, tt.table, tt.column),
				c.p.MasksColumn(tt.schema, tt.table, tt.column)}
			assert.Equal(t, c.want, got, "%s, %s", tt.name, c.p.Policy())
		}
	}
	assert.Same(t, analysts, analysts.Within(analysts), "a policy within itself is itself")
}

// A broken ceiling is refused at start with its line.
func TestCeilingErrors(t *testing.T) {
	t.Parallel()
	const head = "access:\n  channels: [C0GEN, C0DATA]\npolicies:\n  - name: wide\n    tables: [\"a.*\"]\n  - name: narrow\n    tables: [a.b]\ndefault: narrow\n"
	tests := map[string]string{
		"channel_ceilings:\n  - channels: [C0GEN]\n":                                                                      `line 10: channel_ceilings: an entry needs the policy`,
		"channel_ceilings:\n  - channels: [C0GEN]\n    policy: none\n":                                                    `line 10: channel_ceilings: policy names "none", which is not a policy (policies: wide, narrow)`,
		"channel_ceilings:\n  - policy: narrow\n":                                                                         `line 10: channel_ceilings: the ceiling "narrow" names no channel`,
		"channel_ceilings:\n  - channels: [D0DM]\n    policy: narrow\n":                                                   `"D0DM" is a direct message`,
		"channel_ceilings:\n  - channels: [web]\n    policy: narrow\n":                                                    `"web" is not a Slack channel id`,
		"channel_ceilings:\n  - channels: [C0ELSE]\n    policy: narrow\n":                                                 `"C0ELSE" is not one of access.channels`,
		"channel_ceilings:\n  - channels: [C0GEN]\n    policy: narrow\n  - channels: [C0DATA, C0GEN]\n    policy: wide\n": `line 12: channel_ceilings: "C0GEN" has a ceiling already ("narrow")`,
		"channel_ceilings:\n  - channel: [C0GEN]\n    policy: narrow\n":                                                   `unknown key "channel" on line 10`,
		"channel_ceiling:\n  - channels: [C0GEN]\n    policy: narrow\n":                                                   "field channel_ceiling not found",
	}
	for tail, want := range tests {
		_, err := Parse([]byte(head + tail))
		if assert.Error(t, err, tail) {
			assert.Contains(t, err.Error(), want, tail)
		}
	}
	_, err := Parse([]byte("policies:\n  - name: a∩b\n    tables: [a.b]\ndefault: none\n"))
	assert.ErrorContains(t, err, `line 2: policy "a∩b": a name may not hold "∩"`)
}

// docs/access.md's shared-channel example is the one tested here.
func TestDocumentedCeilingExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/access.md")
	require.NoError(t, err)
	example, err := os.ReadFile("testdata/ceiling.yaml")
	require.NoError(t, err)
	body := strings.SplitN(string(example), "\n", 2)[1] // without the comment line
	assert.Contains(t, string(doc), body, "docs/access.md shows testdata/ceiling.yaml")
}
