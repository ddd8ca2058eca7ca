// Package access reads the access file (ACCESS_FILE): who may use the bot
// (users, groups of users, channels, direct messages), what each person
// may read (policies of allowed and denied tables and columns), and what
// may be posted in a shared channel (a channel's ceiling, ceiling.go). The
// bot admits or refuses each message with it and hands the backend the
// asker's policy, which leaves what is outside it out of the catalog and
// refuses queries that reach for it (see warehouse.Access).
package access

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// None is the default that refuses whoever no policy names.
const None = "none"

// Rules are a parsed access file. The zero value is not used: no file
// means no rules (nil), and everyone reads everything.
type Rules struct {
	users, channels []string
	admitGroups     []string
	dms             bool
	groups          map[string][]string
	policies        []*Policy
	def             *Policy // nil: None
	tokens          []Token
	directory       atomic.Pointer[Directory]
	// ceilings are the channels' ceilings (channel_ceilings) by channel
	// id (nil for a channel listed with policy none, which has none);
	// otherCeiling that of every other shared conversation
	// (default_ceiling), nil for none; shared the policies within them,
	// by asker's and ceiling's policy.
	ceilings     map[string]*Policy
	otherCeiling *Policy
	shared       map[[2]string]*Policy
}

// Directory returns the members of a Slack user group (S0123ABC), or an
// error when it cannot tell (Slack did not answer, and nothing read before
// still counts): unknown, which is not the same as no members. It may ask
// Slack: ctx bounds the wait.
type Directory func(ctx context.Context, group string) ([]string, error)

// slackGroup matches a Slack user group's id in a group's members.
var slackGroup = regexp.MustCompile(`^S[A-Z0-9]{2,}$`)

// slackUser matches a Slack user's id (U…, W… in Enterprise Grid): only
// such a user can be in a Slack user group. Anyone else (a named token's
// token:…, the web chat's, the command line's) is in none, whether Slack
// answers or not.
var slackUser = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)

// IsSlackUser reports whether user is a Slack user's id (U…, W…): the only
// kind of user a Slack user group can hold.
func IsSlackUser(user string) bool { return slackUser.MatchString(user) }

// SetDirectory lets groups list Slack user groups among their members
// ("analysts: [U0123ABC, S0DATATEAM]"): their members belong to the group
// too. Without one, whether a Slack user is in a Slack user group is
// unknown (ErrNoDirectory): a process that asks as a Slack user without
// reading Slack (the MCP server over stdio, `context --user`) refuses
// one whose policy hangs on a user group rather than place them under
// another policy. Anyone else is in none, as always.
func (r *Rules) SetDirectory(d Directory) { r.directory.Store(&d) }

// ErrNoDirectory is why the members of a Slack user group are unknown in
// a process that has no directory (SetDirectory): it has no Slack bot
// token to read them with.
var ErrNoDirectory = errors.New("no Slack connection to read its members (SLACK_BOT_TOKEN)")

// noDirectory is the directory of a process that has none.
func noDirectory(context.Context, string) ([]string, error) { return nil, ErrNoDirectory }

// Token is a named identity of the web API: requests bearing the secret
// held in the environment variable Env ask as the user "token:<Name>".
type Token struct {
	Name string `yaml:"name"`
	Env  string `yaml:"env"`
}

// TokenUser is the user id of requests bearing the token named name.
func TokenUser(name string) string { return "token:" + name }

// Tokens are the web API's named tokens.
func (r *Rules) Tokens() []Token { return slices.Clone(r.tokens) }

// Policy is what the people it names may read: tables matching Tables and
// none of DenyTables, and of those every column but DenyColumns.
type Policy struct {
	name        string
	users       []string
	groups      []string
	channels    []string
	tables      []string // "schema.table" patterns
	denyTables  []string
	denyColumns []string // "schema.table.column" patterns
	maskColumns []string
	// within, for a policy within a channel's ceiling (Within), are the
	// two policies it is the intersection of; nil for the file's own.
	within []*Policy
}

// Policy implements warehouse.Access.
func (p *Policy) Policy() string { return p.name }

// AllowsTable implements warehouse.Access. A semantic layer's cubes have
// no schema: the file names them cube.<Cube>.
func (p *Policy) AllowsTable(schema, table string) bool {
	if p.within != nil {
		return p.within[0].AllowsTable(schema, table) && p.within[1].AllowsTable(schema, table)
	}
	name := qualified(schema, table)
	return matchAny(p.tables, name) && !matchAny(p.denyTables, name)
}

// AllowsColumn implements warehouse.Access. A cube's member ("Orders.count")
// is named cube.Orders.count.
func (p *Policy) AllowsColumn(schema, table, column string) bool {
	if p.within != nil {
		return p.within[0].AllowsColumn(schema, table, column) && p.within[1].AllowsColumn(schema, table, column)
	}
	column = strings.TrimPrefix(column, table+".")
	return p.AllowsTable(schema, table) && !matchAny(p.denyColumns, qualified(schema, table)+"/"+column)
}

// MasksColumn implements warehouse.Access.
func (p *Policy) MasksColumn(schema, table, column string) bool {
	if p.within != nil {
		return p.AllowsColumn(schema, table, column) &&
			(p.within[0].MasksColumn(schema, table, column) || p.within[1].MasksColumn(schema, table, column))
	}
	column = strings.TrimPrefix(column, table+".")
	return p.AllowsColumn(schema, table, column) && matchAny(p.maskColumns, qualified(schema, table)+"/"+column)
}

// Match implements warehouse.Matcher: what each list says of a table
// (column "") or a column on its own, for the rules on views, partitions
// and inheritance children (warehouse.Decide).
func (p *Policy) Match(schema, table, column string) warehouse.Match {
	if p.within != nil {
		// Within a ceiling: listed by both, named exactly by both (a view
		// one of them names by a pattern is decided by what it reads),
		// denied or masked by either.
		a, b := p.within[0].Match(schema, table, column), p.within[1].Match(schema, table, column)
		return warehouse.Match{Listed: a.Listed && b.Listed, Exact: a.Exact && b.Exact,
			Denied: a.Denied || b.Denied, Masked: a.Masked || b.Masked}
	}
	name := qualified(schema, table)
	if column == "" {
		exact := slices.ContainsFunc(p.tables, func(t string) bool { return t == name && !strings.ContainsAny(t, `*?[\`) })
		return warehouse.Match{Listed: matchAny(p.tables, name), Exact: exact, Denied: matchAny(p.denyTables, name)}
	}
	name += "/" + strings.TrimPrefix(column, table+".")
	return warehouse.Match{Listed: matchAny(p.tables, qualified(schema, table)), Denied: matchAny(p.denyColumns, name),
		Masked: matchAny(p.maskColumns, name)}
}

var _ warehouse.Matcher = (*Policy)(nil)

// Unmatched implements warehouse.Patterned: the patterns of p's tables,
// deny_tables, deny_columns and mask_columns that match no table,
// partition or column of cat, in the file's order. A policy within a
// ceiling has none of its own: its two policies' patterns are theirs.
func (p *Policy) Unmatched(cat *warehouse.Catalog) []warehouse.Unmatched {
	if p.within != nil || cat == nil {
		return nil
	}
	tables := append(slices.Clip(cat.Tables), cat.Partitions...)
	var out []warehouse.Unmatched
	for _, list := range []struct {
		key      string
		patterns []string
		columns  bool
	}{{"tables", p.tables, false}, {"deny_tables", p.denyTables, false}, {"deny_columns", p.denyColumns, true}, {"mask_columns", p.maskColumns, true}} {
		for _, pat := range list.patterns {
			if !matchesAny(pat, tables, list.columns) {
				out = append(out, warehouse.Unmatched{Policy: p.name, Key: list.key,
					Pattern: strings.ReplaceAll(pat, "/", "."), Exact: !strings.ContainsAny(pat, `*?[\`)})
			}
		}
	}
	return out
}

var _ warehouse.Patterned = (*Policy)(nil)

// matchesAny reports whether pattern (as matchAny compares it) matches
// one of tables, or with columns one of their columns.
func matchesAny(pattern string, tables []warehouse.Table, columns bool) bool {
	for _, t := range tables {
		name := qualified(t.Schema, t.Name)
		if !columns {
			if ok, _ := path.Match(pattern, name); ok {
				return true
			}
			continue
		}
		for _, c := range t.Columns {
			if ok, _ := path.Match(pattern, name+"/"+strings.TrimPrefix(c.Name, t.Name+".")); ok {
				return true
			}
		}
	}
	return false
}

// qualified is schema/table, as patterns are matched (a "/" never occurs
// in a name part the way "." may), with "cube" for a cube's missing
// schema.
func qualified(schema, table string) string {
	if schema == "" {
		schema = "cube"
	}
	return schema + "/" + table
}

// matchAny reports whether name ("schema/table[/column]") matches one of
// patterns, each compared part by part (kept as "analytics/*" for the file's
// "analytics.*").
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// slashed converts the file's "schema.table" patterns to the form
// matchAny compares.
func slashed(patterns []string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.ReplaceAll(p, ".", "/")
	}
	return out
}

// Who is a person asking: their surface's user id, the channel, and
// whether it is a direct message.
type Who struct {
	UserID, ChannelID string
	// DM: a direct message with the bot.
	DM bool
	// Local: the operator's own command line (chat, ask, eval), which the
	// channel and user lists do not apply to.
	Local bool
}

// Refusal says why someone may not ask: the sentence they are told.
type Refusal struct {
	Reason string
	// Unknown, when set, is why the membership of a Slack user group that
	// decides the outcome could not be read: the refusal stands for now,
	// and asking again later may be admitted. It is for logs, not for the
	// person refused.
	Unknown error
}

func (r *Refusal) Error() string { return r.Reason }

// textUnknown is the refusal of someone whose access hangs on a Slack user
// group whose members Slack did not give; textNoDirectory when the process
// has no Slack connection to ask with, where trying again will not help.
const (
	textUnknown     = "I can't check your access right now: Slack didn't answer. Try again in a minute."
	textNoDirectory = "I can't check your access here: it depends on a Slack user group, and this server has no Slack connection to read who is in it. Ask whoever runs this bot."
)

// unknownRefusal refuses someone whose access hangs on a Slack user group
// whose members are unknown, for why.
func unknownRefusal(why error) *Refusal {
	if errors.Is(why, ErrNoDirectory) {
		return &Refusal{Reason: textNoDirectory, Unknown: why}
	}
	return &Refusal{Reason: textUnknown, Unknown: why}
}

// Admit returns the policy of w, or a *Refusal: not an allowed user, not
// an allowed channel, a direct message where they are off, or no policy
// for them. ctx bounds the wait for the members of Slack user groups
// (SetDirectory). When a Slack user group whose members could change the
// outcome cannot be read, w is refused (Refusal.Unknown) rather than
// placed under a policy that group's members might not have: a
// contractors' group denied columns everyone else reads must not read
// them through an outage of Slack's.
func (r *Rules) Admit(ctx context.Context, w Who) (*Policy, error) {
	if !w.Local {
		if ref := r.admitted(ctx, w.UserID); ref != nil {
			return nil, ref
		}
		switch {
		case w.DM && !r.dms:
			return nil, &Refusal{Reason: "I don't answer direct messages here; ask me in a channel I'm in."}
		case !w.DM && len(r.channels) > 0 && !slices.Contains(r.channels, w.ChannelID):
			return nil, &Refusal{Reason: "I don't answer in this channel. Ask whoever runs this bot which channels I work in."}
		}
	}
	p, err := r.policyOf(ctx, w)
	switch {
	case err != nil:
		return nil, unknownRefusal(err)
	case p == nil:
		return nil, &Refusal{Reason: "You don't have access to any data here. Ask whoever runs this bot for access."}
	}
	return p, nil
}

// admitted refuses user when the file lists who may use the bot (users,
// access.groups) and user is not among them, or may be but Slack did not
// say.
func (r *Rules) admitted(ctx context.Context, user string) *Refusal {
	if len(r.users) == 0 && len(r.admitGroups) == 0 || slices.Contains(r.users, user) {
		return nil
	}
	in, err := r.inAny(ctx, r.admitGroups, user)
	switch {
	case in:
		return nil
	case err != nil:
		return unknownRefusal(err)
	}
	return &Refusal{Reason: "You don't have access to this bot. Ask whoever runs it to add you."}
}

// policyOf is the first policy naming the user, else the first naming one
// of their groups, else the first naming the channel, else the default
// (nil: none). It fails when a Slack user group that could change which
// that is cannot be read: one of a policy before the one the user's groups
// place them under, or of any policy when they place them under none and
// the channel's or the default policy is another. The Slack user groups of
// every policy are asked about at once, so that in an outage of Slack's
// the asker waits about one lookup, not one per policy; the lookups still
// waiting are given up once the outcome cannot change.
func (r *Rules) policyOf(ctx context.Context, w Who) (*Policy, error) {
	for _, p := range r.policies {
		if slices.Contains(p.users, w.UserID) {
			return p, nil
		}
	}
	fallback := r.def
	for _, p := range r.policies {
		if w.ChannelID != "" && slices.Contains(p.channels, w.ChannelID) {
			fallback = p
			break
		}
	}
	lists := make([][]string, len(r.policies))
	for i, p := range r.policies {
		lists[i] = p.groups
	}
	// Settled once the policies before the first that has the user have
	// answered, or before the first that cannot be read and is not the
	// fallback: the asker is refused whatever the rest say.
	known := r.memberships(ctx, lists, w.UserID, func(ms []membership) bool {
		for i, m := range ms {
			switch {
			case m.standing == pending:
				return false
			case m.standing == member, m.standing == unreadable && r.policies[i] != fallback:
				return true
			}
		}
		return true
	})
	var unknown []*Policy
	var why error // the first unknown policy's reason
	for i, p := range r.policies {
		switch m := known[i]; m.standing {
		case member:
			if why != nil {
				return nil, why
			}
			return p, nil
		case unreadable:
			unknown = append(unknown, p)
			if why == nil {
				why = m.err
			}
		}
	}
	for _, p := range unknown {
		if p != fallback {
			return nil, why
		}
	}
	return fallback, nil
}

// inAny reports whether user is a member of one of groups. Its error says
// that a Slack user group among them could not be read and user is in
// none of the others: whether they are in groups is unknown. The Slack
// user groups are asked about side by side (memberships): the first that
// lists user ends the others' waits. Of several groups that could not be
// read, the error names the first the file lists, whichever failed first.
func (r *Rules) inAny(ctx context.Context, groups []string, user string) (bool, error) {
	m := r.memberships(ctx, [][]string{groups}, user, func(ms []membership) bool {
		return ms[0].standing != pending
	})[0]
	return m.standing == member, m.err
}

// SlackGroups are the Slack user groups the file's groups name, sorted:
// what a directory may be asked about.
func (r *Rules) SlackGroups() []string {
	var out []string
	for _, members := range r.groups {
		for _, m := range members {
			if slackGroup.MatchString(m) && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// List returns the file's policies, in order.
func (r *Rules) List() []*Policy { return slices.Clone(r.policies) }

// Policies are the names of the file's policies, in order.
func (r *Rules) Policies() []string {
	names := make([]string, len(r.policies))
	for i, p := range r.policies {
		names[i] = p.name
	}
	return names
}

// file is the access file as written.
type file struct {
	Access struct {
		Users          []string `yaml:"users"`
		Groups         []string `yaml:"groups"`
		Channels       []string `yaml:"channels"`
		DirectMessages *bool    `yaml:"direct_messages"`
	} `yaml:"access"`
	Groups   map[string][]string `yaml:"groups"`
	Tokens   []Token             `yaml:"tokens"`
	Policies []yaml.Node         `yaml:"policies"`
	Default  string              `yaml:"default"`
	// ChannelCeilings and DefaultCeiling are read by readCeilings
	// (ceiling.go).
	ChannelCeilings []yaml.Node `yaml:"channel_ceilings"`
	DefaultCeiling  yaml.Node   `yaml:"default_ceiling"`
}

type policyFile struct {
	Name        string   `yaml:"name"`
	Users       []string `yaml:"users"`
	Groups      []string `yaml:"groups"`
	Channels    []string `yaml:"channels"`
	Tables      []string `yaml:"tables"`
	DenyTables  []string `yaml:"deny_tables"`
	DenyColumns []string `yaml:"deny_columns"`
	MaskColumns []string `yaml:"mask_columns"`
}

var (
	tokenName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	envName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// policyKeys are the keys a policy may have.
var policyKeys = []string{"name", "users", "groups", "channels", "tables", "deny_tables", "deny_columns", "mask_columns"}

// Parse reads an access file (docs/access.md). Errors name the line at
// fault.
func Parse(data []byte) (*Rules, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("access file: %w", err)
	}
	r := &Rules{users: f.Access.Users, channels: f.Access.Channels, admitGroups: f.Access.Groups,
		dms: f.Access.DirectMessages == nil || *f.Access.DirectMessages, groups: f.Groups}
	names := map[string]bool{}
	for _, tk := range f.Tokens {
		switch {
		case !tokenName.MatchString(tk.Name):
			return nil, fmt.Errorf("access file: tokens: name %q must be letters, digits, - or _", tk.Name)
		case names[tk.Name]:
			return nil, fmt.Errorf("access file: tokens: a second token named %q", tk.Name)
		case !envName.MatchString(tk.Env):
			return nil, fmt.Errorf("access file: tokens: %q: env must name the environment variable holding its secret, got %q", tk.Name, tk.Env)
		}
		names[tk.Name] = true
		r.tokens = append(r.tokens, tk)
	}
	for _, g := range r.admitGroups {
		if _, ok := r.groups[g]; !ok {
			return nil, fmt.Errorf("access file: access.groups names %q, which groups does not define", g)
		}
	}
	seen := map[string]bool{}
	for _, n := range f.Policies {
		p, err := r.policy(n)
		if err != nil {
			return nil, fmt.Errorf("access file line %d: %w", n.Line, err)
		}
		if seen[p.name] {
			return nil, fmt.Errorf("access file line %d: a second policy named %q", n.Line, p.name)
		}
		seen[p.name] = true
		r.policies = append(r.policies, p)
	}
	switch f.Default {
	case "":
		return nil, errors.New(`access file: default is missing: name the policy of everyone else, or "none" to refuse them`)
	case None:
	default:
		i := slices.IndexFunc(r.policies, func(p *Policy) bool { return p.name == f.Default })
		if i < 0 {
			return nil, fmt.Errorf("access file: default names %q, which is not a policy (policies: %s)", f.Default, strings.Join(r.Policies(), ", "))
		}
		r.def = r.policies[i]
	}
	if err := r.readCeilings(f.ChannelCeilings, f.DefaultCeiling); err != nil {
		return nil, err
	}
	return r, nil
}

// policy reads and checks one policy.
func (r *Rules) policy(n yaml.Node) (*Policy, error) {
	if n.Kind == yaml.MappingNode {
		// Node.Decode ignores the decoder's KnownFields: a misspelt key
		// must not pass as an empty list.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(policyKeys, k.Value) {
				return nil, fmt.Errorf("unknown key %q on line %d (want one of %s)", k.Value, k.Line, strings.Join(policyKeys, ", "))
			}
		}
	}
	var pf policyFile
	if err := n.Decode(&pf); err != nil {
		return nil, err
	}
	if strings.TrimSpace(pf.Name) == "" || pf.Name == None {
		return nil, fmt.Errorf("a policy needs a name (not %q)", None)
	}
	if strings.Contains(pf.Name, withinMark) {
		return nil, fmt.Errorf("policy %q: a name may not hold %q, which names a policy within a channel's ceiling", pf.Name, withinMark)
	}
	if strings.IndexFunc(pf.Name, unicode.IsControl) >= 0 {
		return nil, fmt.Errorf("policy %q: a name may not hold control characters", pf.Name)
	}
	for _, g := range pf.Groups {
		if _, ok := r.groups[g]; !ok {
			return nil, fmt.Errorf("policy %q names the group %q, which groups does not define", pf.Name, g)
		}
	}
	if len(pf.Tables) == 0 {
		return nil, fmt.Errorf(`policy %q allows no table: list them under tables ("analytics.*" for a whole schema)`, pf.Name)
	}
	for _, list := range []struct {
		key   string
		parts int
		items []string
	}{{"tables", 2, pf.Tables}, {"deny_tables", 2, pf.DenyTables}, {"deny_columns", 3, pf.DenyColumns}, {"mask_columns", 3, pf.MaskColumns}} {
		for _, p := range list.items {
			if err := checkPattern(p, list.parts); err != nil {
				return nil, fmt.Errorf("policy %q %s: %w", pf.Name, list.key, err)
			}
		}
	}
	return &Policy{name: pf.Name, users: pf.Users, groups: pf.Groups, channels: pf.Channels,
		tables: slashed(pf.Tables), denyTables: slashed(pf.DenyTables), denyColumns: slashed(pf.DenyColumns),
		maskColumns: slashed(pf.MaskColumns)}, nil
}

// checkPattern checks a "schema.table" (parts 2) or "schema.table.column"
// (parts 3) pattern.
func checkPattern(p string, parts int) error {
	want := "schema.table"
	if parts == 3 {
		want = "schema.table.column"
	}
	segs := strings.Split(p, ".")
	if len(segs) != parts || slices.Contains(segs, "") {
		return fmt.Errorf("%q is not %s (a part may be *)", p, want)
	}
	if _, err := path.Match(strings.ReplaceAll(p, ".", "/"), ""); err != nil {
		return fmt.Errorf("%q: %w", p, err)
	}
	return nil
}

// Load reads the access file at path.
func Load(path string) (*Rules, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("access file: %w", err)
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
