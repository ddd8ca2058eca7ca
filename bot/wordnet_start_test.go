package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
)

// A bot built with the default WORDNET_DIR has read the embedded WordNet
// before its first question, which so does not wait for it (issue 31).
func testWordNetAtStart(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	lex := bot.LexiconOf(b)
	require.NotNil(t, lex)
	require.NotNil(t, lex.WordNet)
	assert.Equal(t, "embedded", lex.WordNet.Source)
	assert.True(t, lex.WordNet.Loaded(), "the embedded WordNet is decompressed when the bot is built")
}
