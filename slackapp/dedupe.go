package slackapp

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"
)

// deduper decides which process handles a delivery. Slack redelivers
// events it saw no acknowledgement for, an app_mention comes with a twin
// message event, and several processes may share a database: the first to
// claim a key in Postgres (bot.FirstDelivery) handles it. Keys this process saw are also kept in
// memory, so a redelivery costs no query and deduplication still works
// within the process while the database is down. Old claims are pruned by
// the store's retention job (store.RunRetention), which `serve` runs.
type deduper struct {
	first func(ctx context.Context, key string) bool
	seen  *lru.Cache[string, struct{}]
}

func newDeduper(first func(ctx context.Context, key string) bool) *deduper {
	seen, _ := lru.New[string, struct{}](8192) // the size is a positive constant
	return &deduper{first: first, seen: seen}
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
	return d.first(ctx, key)
}
