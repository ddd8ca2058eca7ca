package slackapp

import (
	"context"
	"log/slog"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/analyticsbot/analyticsbot/store"
)

// deduper decides which process handles a delivery. Slack redelivers
// events it saw no acknowledgement for, an app_mention comes with a twin
// message event, and several processes may share a database: the first to
// claim a key in Postgres handles it. Keys this process saw are also kept in
// memory, so a redelivery costs no query and deduplication still works
// within the process while the database is down. Old claims are pruned by
// the store's retention job (store.RunRetention), which `serve` runs.
type deduper struct {
	db   *store.DB
	seen *lru.Cache[string, struct{}]
	log  *slog.Logger
}

func newDeduper(db *store.DB, log *slog.Logger) *deduper {
	seen, _ := lru.New[string, struct{}](8192) // the size is a positive constant
	return &deduper{db: db, seen: seen, log: log}
}

// claim reports whether this process should handle the delivery key.
// When the database cannot answer, it handles it: a rare double answer is
// better than a lost question.
func (d *deduper) claim(ctx context.Context, key string) bool {
	if key == "" {
		return true
	}
	if ok, _ := d.seen.ContainsOrAdd(key, struct{}{}); ok {
		return false
	}
	first, err := d.db.ClaimDelivery(ctx, key)
	if err != nil {
		d.log.WarnContext(ctx, "claim delivery: handling it without a claim", "key", key, "err", err)
		return true
	}
	return first
}
