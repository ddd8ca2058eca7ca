package slackapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// deduper decides which process handles a delivery. Slack redelivers
// events it saw no acknowledgement for, an app_mention comes with a twin
// message event, and several processes may share a database: the first to
// claim a key in Postgres (bot.FirstDelivery) handles it. Keys this process saw are also kept in
// memory, so a redelivery costs no query and deduplication still works
// within the process while the database is down. Old claims are pruned by
// the store's retention job (store.RunRetention), which `serve` runs.
//
// It also tells a press repeated within pressRepeat (repeat): a double
// click is two presses with two trigger ids, which Slack may deliver to
// two processes.
type deduper struct {
	first func(ctx context.Context, key string) bool
	seen  *lru.Cache[string, struct{}]
	// firstPress is bot.FirstPress and forgetPress bot.ForgetPress; nil
	// keeps presses in memory only.
	firstPress  func(ctx context.Context, key string, at time.Time, window time.Duration) bool
	forgetPress func(ctx context.Context, key string)
	pressed     *lru.Cache[string, time.Time] // press key → when the last one handled was received
}

func newDeduper(first func(ctx context.Context, key string) bool) *deduper {
	seen, _ := lru.New[string, struct{}](8192) // the sizes are positive constants
	pressed, _ := lru.New[string, time.Time](8192)
	return &deduper{first: first, seen: seen, pressed: pressed}
}

// pressRepeat is how soon the same button of the same message, pressed
// again by the same person, is a repeat: a double click, or a second
// click while the first one's file is still uploading. Its reply (a CSV
// file, the SQL, a refreshed answer, a follow-up asked) is posted for the
// thread once. Pressed later, or again after its reply could not be
// delivered, it is handled again. A press whose reply is for the presser
// alone (a rating, a schedule's buttons) is never held back.
const pressRepeat = 10 * time.Second

// pressKey names a press by what makes two presses the same: the
// message, the person, the button and its value (hashed: a value may be
// 2,000 characters, more than a key may hold).
func pressKey(channel, message, user, actionID, value string) string {
	h := sha256.Sum256([]byte(strings.Join([]string{channel, message, user, actionID, value}, "\x00")))
	return "press:" + hex.EncodeToString(h[:])
}

// forget forgets the press key, whose reply could not be delivered:
// pressed again at once, it is tried again, not held back as a repeat.
func (d *deduper) forget(ctx context.Context, key string) {
	if key == "" {
		return
	}
	d.pressed.Remove(key)
	if d.forgetPress != nil {
		d.forgetPress(ctx, key)
	}
}

// repeat reports whether the press key, received at at, repeats one
// handled less than pressRepeat before it, by this process (kept in
// memory) or another sharing the database. A press that is no repeat is
// recorded as handled; a repeat is not, so the window runs from the last
// press handled anywhere, and a press another process forgot (its reply
// not delivered) is not held back by this one's memory of a repeat.
func (d *deduper) repeat(ctx context.Context, key string, at time.Time) bool {
	if last, ok := d.pressed.Get(key); ok && at.Sub(last) < pressRepeat {
		return true
	}
	if d.firstPress != nil && !d.firstPress(ctx, key, at, pressRepeat) {
		return true
	}
	d.pressed.Add(key, at)
	return false
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
