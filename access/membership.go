package access

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// standing is whether a user is in one list of the file's groups, as far
// as is known.
type standing int

const (
	pending    standing = iota // a Slack user group of the list has not answered
	member                     // a group of the list has the user
	outside                    // every group of the list answered, none has the user
	unreadable                 // none has the user, and Slack did not say for one
)

// membership is what is known of a user in one list of the file's groups.
type membership struct {
	standing standing
	// err, when unreadable, names the first Slack user group of the list
	// (in the file's order) that Slack did not answer for.
	err error
}

// memberships tells whether user is in each of lists, lists of the file's
// groups: out[i] is of lists[i]. Their Slack user groups are asked about
// side by side, each once however many lists name it, so that someone
// whose groups Slack does not answer for waits about one lookup, not one
// per group or per list. After each answer, settled is told what is known;
// once it says that is enough, the lookups still waiting are given up
// (their ctx cancelled) and their lists stay pending. A list is not
// pending when settled is first asked if it names user outright or has no
// Slack user group to ask about.
func (r *Rules) memberships(ctx context.Context, lists [][]string, user string, settled func([]membership) bool) []membership {
	dir := noDirectory
	if d := r.directory.Load(); d != nil {
		dir = *d
	}
	canAsk := IsSlackUser(user)
	out := make([]membership, len(lists))
	asks := make([][]string, len(lists)) // each list's Slack user groups, once each, in the file's order
	var all []string                     // every list's, once each
	for i, groups := range lists {
		out[i].standing = outside
		for _, g := range groups {
			for _, m := range r.groups[g] {
				if m == user {
					out[i].standing = member
				}
				if canAsk && slackGroup.MatchString(m) && !slices.Contains(asks[i], m) {
					asks[i] = append(asks[i], m)
				}
			}
		}
		if out[i].standing == member || len(asks[i]) == 0 {
			asks[i] = nil
			continue
		}
		out[i].standing = pending
		for _, g := range asks[i] {
			if !slices.Contains(all, g) {
				all = append(all, g)
			}
		}
	}
	if len(all) == 0 || settled(out) {
		return out
	}

	var wg sync.WaitGroup
	defer wg.Wait() // no lookup outlives the call: the cancel below gives up those still waiting first
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan answer, len(all)) // room for every answer: no lookup waits on a reader that has gone
	for _, g := range all {
		wg.Go(func() {
			members, err := dir(ctx, g)
			answers <- answer{g, err == nil && slices.Contains(members, user), err}
		})
	}
	got := map[string]answer{}
	for range all {
		a := <-answers
		got[a.group] = a
		for i, groups := range asks {
			if out[i].standing == pending && slices.Contains(groups, a.group) {
				out[i] = standingIn(groups, got)
			}
		}
		if settled(out) {
			break
		}
	}
	return out
}

// answer is what Slack said of one of its user groups: whether user is a
// member, or why it could not say.
type answer struct {
	group string
	in    bool
	err   error
}

// standingIn is where a user stands in a list whose Slack user groups are
// groups, from the answers got so far.
func standingIn(groups []string, got map[string]answer) membership {
	var unanswered bool
	for _, g := range groups {
		a, ok := got[g]
		switch {
		case !ok:
			unanswered = true
		case a.in:
			return membership{standing: member}
		}
	}
	if unanswered {
		return membership{standing: pending}
	}
	for _, g := range groups {
		if err := got[g].err; err != nil {
			return membership{standing: unreadable, err: fmt.Errorf("members of %s: %w", g, err)}
		}
	}
	return membership{standing: outside}
}
