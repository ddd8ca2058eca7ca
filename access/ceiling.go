package access

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A shared channel's ceiling. Everyone in a channel sees what is posted
// there, so the file may give a channel a policy that caps what is posted
// in it (channel_ceilings), and one that caps every other shared
// conversation (default_ceiling): channels it does not list and group DMs,
// which are made on the spot and whose ids no one knows ahead. An answer
// posted there holds only what both its asker's policy and the
// conversation's ceiling allow. That intersection is
// an access policy of its own (Within), with a name of its own, so the
// guard, the catalog, the query log and the database (a login role per
// intersection, `access apply`) all hold it like any other.

// withinMark joins the names of a policy within a ceiling
// ("analysts∩everyone"); the file's own policy names may not hold it.
const withinMark = "∩"

// Within returns the policy that allows what both p and ceiling allow:
// tables both allow, columns both allow, masked where either masks. Its
// name is p's and ceiling's joined by ∩. Within of a policy and itself is
// the policy.
func (p *Policy) Within(ceiling *Policy) *Policy {
	if p == ceiling || ceiling == nil {
		return p
	}
	return &Policy{name: p.name + withinMark + ceiling.name, within: []*Policy{p, ceiling}}
}

// Ceiling returns the policy that caps what is posted where w asks: the
// channel's own (channel_ceilings), else, in any other Slack channel or
// group DM, default_ceiling. It is nil in a direct message, on the
// operator's command line, in a channel listed with policy none, and where
// neither gives one. The web chat and the MCP server have none either:
// their channels ("web", "mcp") are no Slack channel ids, which a ceiling
// needs.
func (r *Rules) Ceiling(w Who) *Policy {
	if r == nil || w.DM || w.Local {
		return nil
	}
	if c, ok := r.ceilings[w.ChannelID]; ok {
		return c // nil when listed with policy none
	}
	if slackChannel.MatchString(w.ChannelID) {
		return r.otherCeiling
	}
	return nil
}

// Shared returns what of p may be posted where w asks when that is less
// than p: p within the channel's ceiling (a policy of AllPolicies). It is
// nil when nothing caps p there: no ceiling, or the ceiling is p itself.
func (r *Rules) Shared(w Who, p *Policy) *Policy {
	c := r.Ceiling(w)
	if c == nil || p == nil || c == p {
		return nil
	}
	return r.shared[[2]string{p.name, c.name}]
}

// AllPolicies are every policy a query may run under: the file's, in
// order, then each of them within each ceiling of channel_ceilings and
// default_ceiling (but the ceiling itself), so that each has a database
// role (`access apply`).
func (r *Rules) AllPolicies() []*Policy {
	out := slices.Clone(r.policies)
	for _, c := range r.ceilingOrder() {
		for _, p := range r.policies {
			if p != c {
				out = append(out, r.shared[[2]string{p.name, c.name}])
			}
		}
	}
	return out
}

// ceilingOrder lists the ceilings' policies in the order of the file's
// policies, once each.
func (r *Rules) ceilingOrder() []*Policy {
	var out []*Policy
	for _, p := range r.policies {
		if p == r.otherCeiling {
			out = append(out, p)
			continue
		}
		for _, c := range r.ceilings {
			if c == p {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ceilingFile is one entry of channel_ceilings as written.
type ceilingFile struct {
	Channels []string `yaml:"channels"`
	Policy   string   `yaml:"policy"`
}

// ceilingKeys are the keys an entry of channel_ceilings may have.
var ceilingKeys = []string{"channels", "policy"}

// slackChannel matches a Slack channel's id: public (C…) or private
// (G…), which a group DM's (mpim) is too. A direct message (D…) shows an
// answer to its asker alone.
var slackChannel = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)

// readCeilings reads and checks channel_ceilings and default_ceiling
// (other), after the policies, and makes the policies within each ceiling.
func (r *Rules) readCeilings(nodes []yaml.Node, other yaml.Node) error {
	r.ceilings, r.shared = map[string]*Policy{}, map[[2]string]*Policy{}
	for _, n := range nodes {
		if err := r.ceiling(n); err != nil {
			return fmt.Errorf("access file line %d: channel_ceilings: %w", n.Line, err)
		}
	}
	if err := r.readOtherCeiling(other); err != nil {
		return fmt.Errorf("access file line %d: %w", other.Line, err)
	}
	for _, c := range r.ceilingOrder() {
		for _, p := range r.policies {
			if p != c {
				r.shared[[2]string{p.name, c.name}] = p.Within(c)
			}
		}
	}
	return nil
}

// ceiling reads one entry of channel_ceilings. Its policy may be none (a
// name no policy may have): its channels have no ceiling, whatever
// default_ceiling says, and so no policy within one.
func (r *Rules) ceiling(n yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(ceilingKeys, k.Value) {
				return fmt.Errorf("unknown key %q on line %d (want one of %s)", k.Value, k.Line, strings.Join(ceilingKeys, ", "))
			}
		}
	}
	var cf ceilingFile
	if err := n.Decode(&cf); err != nil {
		return err
	}
	i := slices.IndexFunc(r.policies, func(p *Policy) bool { return p.name == cf.Policy })
	switch {
	case cf.Policy == "":
		return fmt.Errorf("an entry needs the policy that caps what is posted in its channels")
	case i < 0 && cf.Policy != None:
		return fmt.Errorf("policy names %q, which is not a policy (policies: %s)", cf.Policy, strings.Join(r.Policies(), ", "))
	case len(cf.Channels) == 0:
		return fmt.Errorf("the ceiling %q names no channel: list their ids under channels", cf.Policy)
	}
	var c *Policy // nil for none
	if i >= 0 {
		c = r.policies[i]
	}
	for _, ch := range cf.Channels {
		_, listed := r.ceilings[ch]
		switch {
		case strings.HasPrefix(ch, "D"):
			return fmt.Errorf("%q is a direct message, which only its asker sees: it needs no ceiling", ch)
		case !slackChannel.MatchString(ch):
			return fmt.Errorf("%q is not a Slack channel id (C… or G…); the web chat and the command line show answers to their asker alone", ch)
		case listed:
			return fmt.Errorf("%q has a ceiling already (%q)", ch, r.ceilingName(ch))
		case len(r.channels) > 0 && !slices.Contains(r.channels, ch):
			return fmt.Errorf("%q is not one of access.channels, so the bot never answers there", ch)
		}
		r.ceilings[ch] = c
	}
	return nil
}

// ceilingName is the name of the ceiling channel_ceilings gives ch: its
// policy's, or none.
func (r *Rules) ceilingName(ch string) string {
	if c := r.ceilings[ch]; c != nil {
		return c.name
	}
	return None
}

// readOtherCeiling reads default_ceiling: a policy's name, or none (as
// when it is missing).
func (r *Rules) readOtherCeiling(n yaml.Node) error {
	switch {
	case n.Kind == 0:
		return nil
	case n.Kind != yaml.ScalarNode:
		return fmt.Errorf(`default_ceiling must name one policy (or %q), not a list or a mapping`, None)
	case n.Value == "":
		return fmt.Errorf(`default_ceiling is empty: name the policy that caps what is posted in shared conversations channel_ceilings does not list, or %q`, None)
	case n.Value == None:
		return nil
	}
	i := slices.IndexFunc(r.policies, func(p *Policy) bool { return p.name == n.Value })
	if i < 0 {
		return fmt.Errorf("default_ceiling names %q, which is not a policy (policies: %s)", n.Value, strings.Join(r.Policies(), ", "))
	}
	r.otherCeiling = r.policies[i]
	return nil
}
