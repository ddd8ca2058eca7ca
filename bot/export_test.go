package bot

import "github.com/analyticsbot/analyticsbot/lexicon"

// LogTurn writes a turn's query log row, for the tests of package bot_test.
var LogTurn = (*Bot).logTurn

// LexiconOf is the lexicon b's nodes ground questions with.
func LexiconOf(b *Bot) *lexicon.Lexicon { return b.nodes.Lexicon }
