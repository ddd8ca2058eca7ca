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
		"channel_ceilings:\n  - channels: [C0GEN]\n    policy: nobody\n":                                                  `line 10: channel_ceilings: policy names "nobody", which is not a policy (policies: wide, narrow)`,
		"channel_ceilings:\n  - policy: none\n":                                                                           `line 10: channel_ceilings: the ceiling "none" names no channel`,
		"channel_ceilings:\n  - channels: [D0DM]\n    policy: none\n":                                                     `line 10: channel_ceilings: "D0DM" is a direct message`,
		"channel_ceilings:\n  - channels: [C0ELSE]\n    policy: none\n":                                                   `"C0ELSE" is not one of access.channels`,
		"channel_ceilings:\n  - channels: [C0GEN]\n    policy: none\n  - channels: [C0GEN]\n    policy: wide\n":           `line 12: channel_ceilings: "C0GEN" has a ceiling already ("none")`,
		"channel_ceilings:\n  - channels: [C0GEN]\n    policy: narrow\n  - channels: [C0GEN]\n    policy: none\n":         `line 12: channel_ceilings: "C0GEN" has a ceiling already ("narrow")`,
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
	// Backends keep a view per policy name; the one for examples shown to
	// a policy's users (warehouse.PermitsShown) ends in a control character.
	_, err = Parse([]byte("policies:\n  - name: \"a\\0masks denied\"\n    tables: [a.b]\ndefault: none\n"))
	assert.ErrorContains(t, err, `line 2: policy "a\x00masks denied": a name may not hold control characters`)
	_, err = Parse([]byte("policies:\n  - name: none\n    tables: [a.b]\ndefault: none\nchannel_ceilings:\n  - channels: [C0GEN]\n    policy: none\n"))
	assert.ErrorContains(t, err, `line 2: a policy needs a name (not "none")`, "policy: none never names a policy")
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

// default_ceiling caps every shared conversation channel_ceilings does not
// list: a public or private channel, a group DM (mpim, G… or C…). A
// listed channel keeps its own, and one listed with policy none has none,
// nor a role of its own; a direct message, the web chat, the MCP server
// and the command line have none.
func TestDefaultCeiling(t *testing.T) {
	t.Parallel()
	r, err := Load("testdata/default_ceiling.yaml")
	require.NoError(t, err)
	tests := []struct {
		name        string
		who         Who
		wantCeiling string
		wantShared  string
	}{
		{"an analyst in a channel not listed", Who{UserID: "UANA", ChannelID: "C0RANDOM"}, "everyone", "analysts∩everyone"},
		{"an analyst in a private channel not listed", Who{UserID: "UANA", ChannelID: "G0PRIVATE"}, "everyone", "analysts∩everyone"},
		{"an analyst in a group DM", Who{UserID: "UANA", ChannelID: "G0MPIM"}, "everyone", "analysts∩everyone"},
		{"finance in a group DM", Who{UserID: "UFAY", ChannelID: "C0MPIM"}, "everyone", "finance∩everyone"},
		{"the catch-all's own policy: nothing to cap", Who{UserID: "UZED", ChannelID: "G0MPIM"}, "everyone", ""},
		{"a listed channel keeps its ceiling", Who{UserID: "UANA", ChannelID: "C0FINANCE"}, "finance", "analysts∩finance"},
		{"finance in its own listed channel", Who{UserID: "UFAY", ChannelID: "C0FINANCE"}, "finance", ""},
		{"an analyst in a channel listed with none", Who{UserID: "UANA", ChannelID: "C0DATA"}, "", ""},
		{"finance in a channel listed with none", Who{UserID: "UFAY", ChannelID: "C0DATA"}, "", ""},
		{"a direct message", Who{UserID: "UANA", ChannelID: "D0DM", DM: true}, "", ""},
		{"a direct message's id alone", Who{UserID: "UANA", ChannelID: "D0DM"}, "", ""},
		{"the command line", Who{UserID: "terminal", ChannelID: "terminal", Local: true}, "", ""},
		{"the web chat", Who{UserID: "web", ChannelID: "web"}, "", ""},
		{"the MCP server", Who{UserID: "UANA", ChannelID: "mcp"}, "", ""},
	}
	for _, tt := range tests {
		p, err := r.Admit(t.Context(), Who{UserID: tt.who.UserID, ChannelID: "D0DM", DM: true})
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
	assert.Equal(t, []string{"finance", "analysts", "everyone", "analysts∩finance", "everyone∩finance", "finance∩everyone", "analysts∩everyone"}, names,
		"every policy a query may run under, within the catch-all too, each to have its role; none for the channel listed with none")

	none, err := Parse([]byte("policies:\n  - name: a\n    tables: [a.b]\ndefault: a\ndefault_ceiling: none\n"))
	require.NoError(t, err)
	assert.Nil(t, none.Ceiling(Who{UserID: "U1", ChannelID: "G0MPIM"}), `default_ceiling: none caps nothing`)
	assert.Len(t, none.AllPolicies(), 1)
}

// A broken default_ceiling is refused at start with its line.
func TestDefaultCeilingErrors(t *testing.T) {
	t.Parallel()
	const head = "policies:\n  - name: wide\n    tables: [\"a.*\"]\n  - name: narrow\n    tables: [a.b]\ndefault: narrow\n"
	tests := map[string]string{
		"default_ceiling: nobody\n":          `access file line 7: default_ceiling names "nobody", which is not a policy (policies: wide, narrow)`,
		"default_ceiling: \"\"\n":            `access file line 7: default_ceiling is empty: name the policy that caps what is posted in shared conversations channel_ceilings does not list, or "none"`,
		"default_ceiling: [narrow]\n":        `access file line 7: default_ceiling`,
		"default_ceiling:\n  policy: wide\n": `access file line 8: default_ceiling`,
	}
	for tail, want := range tests {
		_, err := Parse([]byte(head + tail))
		if assert.Error(t, err, tail) {
			assert.Contains(t, err.Error(), want, tail)
		}
	}
	example, err := os.ReadFile("testdata/default_ceiling.yaml")
	require.NoError(t, err)
	_, err = Parse([]byte(strings.Replace(string(example), "default_ceiling: everyone", "default_ceiling: evryone", 1)))
	assert.EqualError(t, err, `access file line 21: default_ceiling names "evryone", which is not a policy (policies: finance, analysts, everyone)`,
		"the mistake docs/access.md shows")
}

// With access.channels set, a group DM, whose id no one lists, is not
// answered, and default_ceiling caps the listed channels channel_ceilings
// does not.
func TestDefaultCeilingWithChannelList(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte("access:\n  channels: [C0DATA, C0GEN]\npolicies:\n  - name: wide\n    tables: [\"a.*\"]\n  - name: narrow\n    tables: [a.b]\n" +
		"default: wide\nchannel_ceilings:\n  - channels: [C0DATA]\n    policy: wide\ndefault_ceiling: narrow\n"))
	require.NoError(t, err)
	_, err = r.Admit(t.Context(), Who{UserID: "UANA", ChannelID: "G0MPIM"})
	assert.ErrorContains(t, err, "I don't answer in this channel", "a group DM is not in access.channels")
	for ch, want := range map[string]string{"C0DATA": "wide", "C0GEN": "narrow"} {
		if c := r.Ceiling(Who{UserID: "UANA", ChannelID: ch}); assert.NotNil(t, c, ch) {
			assert.Equal(t, want, c.Policy(), ch)
		}
	}
}

// docs/access.md's group-DM example is the one tested here.
func TestDocumentedDefaultCeilingExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/access.md")
	require.NoError(t, err)
	example, err := os.ReadFile("testdata/default_ceiling.yaml")
	require.NoError(t, err)
	body := strings.SplitN(string(example), "\n", 2)[1]
	assert.Contains(t, string(doc), body, "docs/access.md shows testdata/default_ceiling.yaml")
}
