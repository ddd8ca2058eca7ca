// Package migrations holds the goose SQL migrations of the bot's own tables
// (conversation turns, the query result cache) and the read-only role the
// executor switches to. store.(*DB).Migrate applies them from FS at start-up.
package migrations

import "embed"

// FS holds every migration file; goose orders them by their numeric prefix.
//
//go:embed *.sql
var FS embed.FS
