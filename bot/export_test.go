package bot

import (
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/lexicon"
)

// LogTurn writes a turn's query log row, for the tests of package bot_test.
var LogTurn = (*Bot).logTurn

// LexiconOf is the lexicon b's nodes ground questions with.
func LexiconOf(b *Bot) *lexicon.Lexicon { return b.nodes.Lexicon }

// RefingerprintEvery runs b's passes over the stored examples at each tick
// of tick until ctx ends, as StartRefingerprint does with a ticker.
var RefingerprintEvery = (*Bot).refingerprintEvery

// StoreExamples stores b's examples file as bot.New does at start, for a
// bot built with NewWithBackend.
var StoreExamples = (*Bot).storeExamples

// LinksOf is the link rules a bot with c answers with from the backend
// named backend: LINKS_FILE's, else the demo's on the demo data.
func LinksOf(c Config, backend string) (answer.Links, error) { return c.links(backend) }
