package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Who sees a reply. In a channel with a ceiling (ACCESS_FILE's
// channel_ceilings) an answer is posted for everyone there only when its
// query stays within the asker's policy and the ceiling
// (warehouse.Caller.Shared), and it then runs under that intersection;
// otherwise it runs under the asker's own policy and goes to them alone,
// kept in a thread of theirs (PrivateThread) that no one else's history,
// follow-up or button reads, and the channel reads PrivateNote.

// Audience is who may see a reply.
type Audience string

const (
	// AudienceAll: everyone where it was asked (a channel's members, the
	// asker of a direct message, the web chat or the terminal).
	AudienceAll Audience = ""
	// AudienceAsker: the asker alone.
	AudienceAsker Audience = "asker"
)

// Private reports whether the reply is for the asker alone.
func (s *State) Private() bool { return s.Audience == AudienceAsker }

// PrivateThread names the thread that keeps one person's private answers
// in a channel with a ceiling: their turns, results and buttons live there,
// never in the channel's threads.
func PrivateThread(channel, user string) string { return channel + ":private:" + user }

// isPrivateThread reports whether thread is one PrivateThread names.
func isPrivateThread(thread string) bool { return strings.Contains(thread, ":private:") }

// KeptIn is the thread the run's turn and results are kept in: the
// asker's private thread for an answer beyond the channel's ceiling, else
// the run's own.
func (s *State) KeptIn() string {
	if s.Ceiling != "" && s.Private() {
		return PrivateThread(s.ChannelID, s.UserID)
	}
	return s.ThreadTS
}

// PrivateNote is what the channel reads in place of a reply its asker
// alone sees: who it went to, and no data, query or name of a table.
func PrivateNote(s *State) *answer.Answer {
	text := fmt.Sprintf("I replied to <@%s> privately: what they asked reaches beyond what this channel may see.", s.UserID)
	return &answer.Answer{Kind: answer.KindNotice, Text: answer.Mentions(answer.ParseText(text))}
}

// audienceCtx is ctx for what s's reply shows: under the channel's
// ceiling (warehouse.SharedCaller) unless the reply is the asker's alone.
func audienceCtx(ctx context.Context, s *State) context.Context {
	if s.Private() {
		return ctx
	}
	return warehouse.SharedCaller(ctx)
}

// chooseAudience decides who the answer of a generated query is for, in a
// channel whose ceiling caps the asker's policy, and returns the context
// to check and run it under: within the ceiling, the channel, under the
// intersection; beyond it but within the asker's policy, the asker alone,
// under their policy. A query neither may run is the same mistake for
// either, told where it was asked, unless a refusal names what was
// reached for: the asker's own policy's, or the ceiling's (a table beyond
// it, which the channel may not learn of), which goes to them alone, where
// a mistake their policy lets them fix (a masked column returned) is
// retried.
func (n *Nodes) chooseAudience(ctx context.Context, s *State) context.Context {
	if warehouse.CallerOf(ctx).Shared == nil {
		return ctx
	}
	shared := warehouse.SharedCaller(ctx)
	ceilingErr := warehouse.Permits(shared, n.Warehouse, s.Query.Text)
	if ceilingErr == nil {
		s.Audience = AudienceAll
		return shared
	}
	if err := warehouse.Permits(ctx, n.Warehouse, s.Query.Text); err != nil && warehouse.KindOf(err) != warehouse.Forbidden &&
		warehouse.KindOf(ceilingErr) != warehouse.Forbidden {
		s.Audience = AudienceAll
		return shared
	}
	s.Audience = AudienceAsker
	return ctx
}
