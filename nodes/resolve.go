package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
)

type resolveReply struct {
	Question          string  `json:"question"`
	ReferencedQueryID *string `json:"referenced_query_id"`
}

// ResolveContext turns a follow-up into a standalone question. A new
// question, a thread without history, or a follow-up the classifier already
// rewrote needs no model call.
func (n *Nodes) ResolveContext(ctx context.Context, s *State) error {
	switch {
	case s.Intent != IntentFollowUp || len(s.History) == 0:
		s.ResolvedQuery = s.UserQuery
		return nil
	case s.Standalone != "":
		s.ResolvedQuery = s.Standalone
		return nil
	}
	reply, err := n.complete(ctx, s, llm.StepResolve, prompts.Resolve{Question: s.UserQuery, History: history(s.History)})
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	var r resolveReply
	if err := llm.DecodeJSON(reply, &r); err != nil || strings.TrimSpace(r.Question) == "" {
		// Keep the earlier question beside the follow-up so the generator
		// still sees what "those" refers to.
		last := prompts.OneLine(s.History[len(s.History)-1].UserMessage)
		s.ResolvedQuery = fmt.Sprintf("%s (follow-up to: %s)", s.UserQuery, last)
		s.note(fmt.Sprintf("resolver reply unusable (%v): %.200q", err, reply))
		return nil
	}
	s.ResolvedQuery = s.capText("resolved question", strings.TrimSpace(r.Question), n.MaxMessageLen)
	if r.ReferencedQueryID != nil {
		s.ReferencedQueryID = strings.TrimSpace(*r.ReferencedQueryID)
	}
	return nil
}
