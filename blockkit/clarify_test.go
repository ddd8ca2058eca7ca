package blockkit

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
)

// A question asked back shows its choices as ask buttons: the label is
// the choice, the value the question it asks. Choices Slack would refuse
// (no label, a value over Slack's limit) are left out, never sent.
func TestClarifyButtons(t *testing.T) {
	t.Parallel()
	a := clarifyAnswer()
	a.Choices = append(a.Choices,
		answer.Choice{Label: "  ", Ask: "How many? (blank)"},
		answer.Choice{Label: "too long", Ask: strings.Repeat("q", maxButtonValue+1)},
		answer.Choice{Label: strings.Repeat("l", 100), Ask: "How many games did Bethesda publish? (a long label)"})
	m := Reply(a)
	assert.Equal(t, "Which Bethesda do you mean?", m.Text)
	require.Len(t, m.Blocks, 2)
	actions, ok := m.Blocks[1].(*slack.ActionBlock)
	require.True(t, ok, "got %T, want the choices' buttons", m.Blocks[1])
	assert.Equal(t, ClarifyBlockID, actions.BlockID)
	var labels, values []string
	for _, e := range actions.Elements.ElementSet {
		b := e.(*slack.ButtonBlockElement)
		assert.True(t, IsAskAction(b.ActionID), "%s asks its value", b.ActionID)
		labels, values = append(labels, b.Text.Text), append(values, b.Value)
	}
	assert.Equal(t, []string{"Bethesda Softworks", "Bethesda-Soft", "all three", strings.Repeat("l", 74) + "…"}, labels)
	assert.Equal(t, "How many games did Bethesda publish? (Bethesda Softworks)", values[0])
}
