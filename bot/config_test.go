package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
)

// The examples' settings: clear errors for what cannot work, admins
// cleaned of spaces and repeats.
func TestConfigExamples(t *testing.T) {
	t.Parallel()
	base := func() bot.Config {
		return bot.Config{Backend: "postgres", LLMProvider: "script", ExamplesK: 3}
	}
	c := base()
	c.ExampleAdmins = []string{" U1 ", "", "U2", "U1"}
	require.NoError(t, c.Check())
	assert.Equal(t, []string{"U1", "U2"}, c.ExampleAdmins)

	for name, tc := range map[string]struct {
		adjust func(*bot.Config)
		want   string
	}{
		"negative k":                         {func(c *bot.Config) { c.ExamplesK = -1 }, "EXAMPLES_K"},
		"negative auto-verify":               {func(c *bot.Config) { c.ExamplesAutoVerify = -2 }, "EXAMPLES_AUTO_VERIFY"},
		"embeddings from the scripted model": {func(c *bot.Config) { c.ExamplesEmbeddings = true }, `EXAMPLES_EMBEDDINGS needs a model provider with embeddings (openai or ollama); "script" has none`},
		"embeddings from anthropic":          {func(c *bot.Config) { c.ExamplesEmbeddings, c.LLMProvider = true, "anthropic" }, `"anthropic" has none`},
	} {
		c := base()
		tc.adjust(&c)
		err := c.Check()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
	c = base()
	c.ExamplesEmbeddings, c.LLMProvider = true, "ollama"
	assert.NoError(t, c.Check())
}
