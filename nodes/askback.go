package nodes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Asking back. When a question can be read several ways, the generator
// may reply with a short question and its options instead of a query (the
// "ask_back" part of its prompt): no extra model call, since the generator
// is called anyway. The bot tells it which words of the question match
// several stored values about equally well (the demo's "Bethesda": three
// spellings of a publisher) and lets it judge, because only the model reads
// what the question means: "all the Bethesda labels" or a follow-up that
// names one is no ambiguity, while scores alone would ask.

// AskBackMode says when the generator is offered to ask back
// (ASK_BACK): the offer costs about 90 prompt tokens.
type AskBackMode string

// The modes.
const (
	// AskBackValues offers it when the question's words match several
	// stored values about equally well (the default).
	AskBackValues AskBackMode = "values"
	// AskBackAlways offers it for every question: the generator may also
	// ask about a question's words ("top games": by revenue or players?).
	AskBackAlways AskBackMode = "always"
	// AskBackOff never offers it.
	AskBackOff AskBackMode = "off"
)

// Valid reports whether m is one of the modes.
func (m AskBackMode) Valid() bool { return m == AskBackValues || m == AskBackAlways || m == AskBackOff }

// offerAskBack sets what the generator is offered for asking back: nothing
// where it may not ask (mayAsk) or ASK_BACK is off; else the question's
// ambiguous values, and the offer when there are some or ASK_BACK is
// always.
func (n *Nodes) offerAskBack(ctx context.Context, s *State, data *prompts.GenerateQuery) {
	if n.AskingBack == AskBackOff || !mayAsk(ctx, s) {
		return
	}
	data.Ambiguous = ambiguousValues(s.Question(), s.Matches, n.Warehouse.Dialect())
	data.MayAsk = n.AskingBack == AskBackAlways || len(data.Ambiguous) > 0
}

// Clarification is the generator's question back: a short question and the
// options a user chooses from. Written by generate_query.
type Clarification struct {
	Question string
	// Options are 2 to maxChoices short phrases; Asks the questions that
	// choosing them asks (the clarified question with the option).
	Options []string
	Asks    []string
}

// Bounds of a clarification the bot shows; a reply beyond them is not
// shown (the generator's reply counts as holding no query).
const (
	minChoices = 2
	maxChoices = 5
	// maxClarifyLen bounds the question asked back, in characters.
	maxClarifyLen = 200
	// maxChoiceLen is Slack's limit on a button's label.
	maxChoiceLen = 75
	// maxAskLen is Slack's limit on a button's value, which carries the
	// question a choice asks.
	maxAskLen = 2000
)

// clarificationReply is the generator's reply when it asks back.
type clarificationReply struct {
	Clarification *struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	} `json:"clarification"`
}

// readClarification reads the question back of a generator reply that held
// no query, for the question asked. ok is false when the reply holds none
// that can be shown; why then says what was wrong with one it held.
func readClarification(reply, asked string) (c Clarification, ok bool, why string) {
	var r clarificationReply
	if llm.DecodeJSON(reply, &r) != nil || r.Clarification == nil {
		return c, false, ""
	}
	q := strings.Join(strings.Fields(r.Clarification.Question), " ")
	switch n := utf8.RuneCountInString(q); {
	case n == 0:
		return c, false, "a clarification without a question"
	case n > maxClarifyLen:
		return c, false, fmt.Sprintf("a clarification question of %d characters", n)
	}
	c.Question = q
	seen := map[string]bool{}
	for _, o := range r.Clarification.Options {
		o = strings.Join(strings.Fields(o), " ")
		if o == "" || seen[strings.ToLower(o)] {
			continue
		}
		seen[strings.ToLower(o)] = true
		if utf8.RuneCountInString(o) > maxChoiceLen {
			return Clarification{}, false, fmt.Sprintf("a clarification option of %d characters", utf8.RuneCountInString(o))
		}
		ask := asked + " (" + o + ")"
		if len(ask) > maxAskLen {
			return Clarification{}, false, "a clarification of a question too long to ask again"
		}
		c.Options, c.Asks = append(c.Options, o), append(c.Asks, ask)
	}
	if n := len(c.Options); n < minChoices || n > maxChoices {
		return Clarification{}, false, fmt.Sprintf("a clarification with %d options", n)
	}
	return c, true, ""
}

// mayAsk reports whether the generator may ask back for s: on a question's
// first attempt only (a retry fixes a query), never right after the bot
// asked back (the question then holds the choice), and never in a channel
// whose ceiling caps the asker: the options may name stored values beyond
// what the channel may see.
func mayAsk(ctx context.Context, s *State) bool {
	if s.RetryCount > 0 || warehouse.CallerOf(ctx).Shared != nil {
		return false
	}
	return len(s.History) == 0 || s.History[len(s.History)-1].Intent != string(IntentAskBack)
}

// Ambiguity of stored values: several values of one column match a phrase
// of the question with a similarity of at least ambiguousSimilarity,
// within ambiguityMargin of the best, and each is mostly the phrase (it
// takes at least minCoverage of the value's characters): spellings of a
// name, not titles that mention a word ("The Witcher 2", "Refill your
// Roguelike").
const (
	ambiguousSimilarity = 0.9
	ambiguityMargin     = 0.05
	minCoverage         = 0.4
)

// ambiguousValues finds the phrases of the question that match several
// stored values of one column about equally well: "Bethesda" matches
// 'Bethesda Softworks', 'Bethesda-Softworks' and 'Bethesda-Soft'. A phrase
// is settled, and asks nothing, when a stored value is the phrase itself
// (in any column: "rpg" is the genre 'RPG'), when the question names one
// of its values whole, or when a longer phrase of the question that holds
// it matched ("Bethesda Softworks"); within a column, one value better by
// more than the margin clearly wins. The values are written as d writes
// them (valueHints).
func ambiguousValues(question string, matches []store.ValueMatch, d warehouse.Dialect) []prompts.AmbiguousValue {
	type key struct {
		phrase string
		col    store.ValueColumn
	}
	lower := strings.ToLower(question)
	settled := map[string]bool{}
	var order []key
	groups := map[key][]store.ValueMatch{}
	for _, m := range matches {
		p := strings.ToLower(m.Phrase)
		if m.Exact || strings.Contains(lower, strings.ToLower(m.Value)) {
			settled[p] = true
		}
		k := key{p, m.ValueColumn}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], m)
	}
	for _, k := range order {
		for _, o := range order {
			if o.phrase != k.phrase && containsWords(o.phrase, k.phrase) {
				settled[k.phrase] = true
			}
		}
	}
	var out []prompts.AmbiguousValue
	for _, k := range order {
		if settled[k.phrase] {
			continue
		}
		g := slices.DeleteFunc(slices.Clone(groups[k]), func(m store.ValueMatch) bool {
			return float64(utf8.RuneCountInString(m.Phrase)) < minCoverage*float64(utf8.RuneCountInString(m.Value))
		})
		best := 0.0
		for _, m := range g {
			best = max(best, m.Similarity)
		}
		if best < ambiguousSimilarity {
			continue
		}
		near := slices.DeleteFunc(g, func(m store.ValueMatch) bool { return m.Similarity < best-ambiguityMargin })
		if len(near) < minChoices {
			continue
		}
		hint := valueHints(near[:min(len(near), maxChoices)], d)[0]
		out = append(out, prompts.AmbiguousValue{Phrase: near[0].Phrase, ValueHint: hint})
	}
	return out
}

// containsWords reports whether the phrase long holds the phrase short as
// whole words.
func containsWords(long, short string) bool {
	return strings.Contains(" "+long+" ", " "+short+" ")
}

// AskBack asks the generator's question back: its options are buttons (or
// numbers) that ask the question again with the choice, in the same
// thread. It never calls the model.
func (n *Nodes) AskBack(_ context.Context, s *State) error {
	c := s.Clarification
	choices := make([]answer.Choice, len(c.Options))
	for i := range c.Options {
		choices[i] = answer.Choice{Label: c.Options[i], Ask: c.Asks[i]}
	}
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindClarify, Question: s.Question(),
		Text: answer.Plain(c.Question), Choices: choices, Elapsed: n.elapsed(s)})
	return nil
}
