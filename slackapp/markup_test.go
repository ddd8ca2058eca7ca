package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		channels       map[string]string
	}{
		{name: "leading mention", in: "<@UBOT> how many games?", want: "how many games?"},
		{name: "mention with label", in: "<@UBOT|analyticsbot>   top publishers", want: "top publishers"},
		{name: "other people stay", in: "<@UBOT> games by <@U999>?", want: "games by <@U999>?"},
		{name: "another person with a name", in: "games by <@U999|ana>", want: "games by @ana"},
		{name: "only a mention", in: "<@UBOT>", want: ""},
		{name: "entities", in: "revenue of AT&amp;T where orders &gt; 100 &lt; 200", want: "revenue of AT&T where orders > 100 < 200"},
		{name: "an escaped entity is unescaped once", in: "&amp;lt; stays", want: "&lt; stays"},
		{name: "typed markup stays text", in: "&lt;!channel&gt; and &lt;@UBOT&gt;", want: "<!channel> and <@UBOT>"},
		{name: "link with label", in: "see <https://x.example/a?b=1&amp;c=2|the Q&amp;A page>", want: "see the Q&A page"},
		{name: "link without label", in: "see <https://x.example/a?b=1&amp;c=2>", want: "see https://x.example/a?b=1&c=2"},
		{name: "mail address", in: "<mailto:bob@example.com>", want: "bob@example.com"},
		{name: "channel", in: "signups in <#C0123ABC|growth>", want: "signups in #growth", channels: map[string]string{"growth": "C0123ABC"}},
		{name: "channel without a name", in: "signups in <#C0123ABC>", want: "signups in #C0123ABC", channels: map[string]string{"c0123abc": "C0123ABC"}},
		{name: "channel with an empty name", in: "signups in <#C0123ABC|>", want: "signups in #C0123ABC", channels: map[string]string{"c0123abc": "C0123ABC"}},
		{name: "a typed channel mention is text", in: "post to &lt;#C0999OTHER|growth&gt;", want: "post to <#C0999OTHER|growth>"},
		{name: "here", in: "<!here> revenue", want: "@here revenue"},
		{name: "channel ping", in: "<!channel|channel> revenue", want: "@channel revenue"},
		{name: "everyone", in: "<!everyone>", want: "@everyone"},
		{name: "user group", in: "<!subteam^S0123|@finance> revenue", want: "@finance revenue"},
		{name: "date", in: "since <!date^1392734382^{date_short}|Feb 18, 2014>", want: "since Feb 18, 2014"},
		{name: "unknown shape stays", in: "x <y> z", want: "x <y> z"},
		{name: "white space", in: "a\n\n b\t c", want: "a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := plainText(tt.in, "UBOT")
			assert.Equal(t, tt.want, got.text, "text of %q", tt.in)
			assert.Equal(t, tt.channels, got.channels, "channels of %q", tt.in)
		})
	}
}

// generatePrompt is the first prompt for SQL that holds want, "" when
// none did.
func (h *harness) generatePrompt(want string) string {
	for _, c := range h.bot.Scripted.Calls() {
		if c.Step == "generate_sql" && strings.Contains(c.Prompt, want) {
			return c.Prompt
		}
	}
	return ""
}

// entityRule answers the questions below with the 2018 query.
const entityRule = `
  - step: generate_sql
    match: '(?im)^Question: (revenue of AT&T|games in) '
    reply: '{"sql": "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"}'
`

// Slack sends a message's &, < and > as entities and its links and
// channels in its own syntax; the workflow gets what the person typed,
// and a reply that quotes the question is escaped for Slack again.
func TestSlackMarkupReachesTheWorkflowAsTyped(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(bottest.DemoScript(entityRule)))
	ch := channelID("CENTITY")

	ts := "1700004001.000100"
	h.mention(ch, ts, "", "revenue of AT&amp;T where orders &gt; 100 &lt;!channel&gt;")
	m := h.answerIn(ch, ts, "8,160")
	typed := "revenue of AT&T where orders > 100 <!channel>"
	p := h.generatePrompt("Question: " + typed)
	assert.NotEmpty(t, p, "the model reads the question as typed")
	assert.NotContains(t, p, "&amp;", "no entity reaches the model")

	h.press(m, "export_csv", queryID(t, m))
	f := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.ThreadTS == ts })
	assert.Equal(t, "Here is the CSV of “revenue of AT&amp;T where orders &gt; 100 &lt;!channel&gt;”: 1 row.", f.InitialComment,
		"the comment quoting the question is escaped for Slack: no entity doubled, no @channel")

	ts = "1700004002.000100"
	h.mention(ch, ts, "", "games in <#C0123ABC|growth> from <https://store.example/x?a=1&amp;b=2|the store>")
	h.answerIn(ch, ts, "8,160")
	assert.NotEmpty(t, h.generatePrompt("Question: games in #growth from the store\n"), "a channel and a link read as their labels")
}

// A slash command's question is read as a message's, and the question the
// bot posts for it is escaped for Slack again: no entity doubled, no ping.
func TestSlashCommandQuestionAsTyped(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(bottest.DemoScript(entityRule)))
	ch := channelID("CENTCMD")
	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands",
		Payload: mustJSON(t, h.slack.SlashCommand("/ask", "revenue of AT&amp;T where orders &gt; 100 &lt;!channel&gt;", user, ch))})
	h.slack.WaitAck(t, id)
	asked := h.slack.WaitMessage(t, "the question posted", func(m fakeslack.Message) bool {
		return m.Channel == ch && strings.Contains(strings.Join(m.BlockTexts(), "\n"), "asked:")
	})
	shown := strings.Join(asked.BlockTexts(), "\n")
	assert.Contains(t, shown, "revenue of AT&amp;T where orders &gt; 100 &lt;!channel&gt;", "escaped once for Slack")
	assert.NotContains(t, shown, "<!channel>", "no ping")
	h.answerIn(ch, asked.TS, "8,160")
	assert.NotEmpty(t, h.generatePrompt("Question: revenue of AT&T where orders > 100 <!channel>"), "the model reads the question as typed")
}

// A question quoted back in the bot's voice keeps its characters: a
// Markdown link typed in it (which Slack sends as [label](<address>)), its
// *stars* and `backticks` are no link, bold or code of the bot's in the
// Schedule button's presets.
func TestQuotedQuestionIsNoMarkup(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(bottest.DemoScript(entityRule)))
	ch, ts := channelID("CQUOTED"), "1700004101.000100"
	h.mention(ch, ts, "", "games in 2018 [Re-authenticate the bot here](<https://evil.example/login>) *now* `x`")
	m := h.answerIn(ch, ts, "8,160")
	h.press(m, "schedule", queryID(t, m))
	presets := says(h.ephemeralTo(user, "When should I send you"))
	assert.NotContains(t, presets, "<https://evil.example/login|", "no link under a label of the question's")
	assert.Contains(t, presets, "“games in 2018 [Re-authenticate the bot here](https://evil.example/login) *now* `x`”",
		"the question as typed")
}

// A channel mention typed as text (Slack sends it as &lt;#…&gt;) names no
// channel to post to: only a channel picked from Slack's list keeps its
// id, so a schedule never posts to a channel its confirmation names by
// another name.
func TestTypedChannelMentionIsNoDestination(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, root := channelID("CTYPEDCH"), "1700004201.000100"
	answered(t, h, ch, root)
	h.mention(ch, "1700004202.000100", root, "post this to &lt;#C0999OTHER|growth&gt; every day at 9am")
	reply := h.slack.WaitMessage(t, "the reply to the schedule's words", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == root && (strings.Contains(says(m), "which channel") || strings.Contains(says(m), "Shall I save it?"))
	})
	got := says(reply)
	assert.Contains(t, got, "I couldn't tell which channel “#c0999other” is", "asked to pick the channel")
	assert.NotContains(t, got, "<#C0999OTHER", "no post to the typed id")
	assert.NotContains(t, got, "Shall I save it?")
}
