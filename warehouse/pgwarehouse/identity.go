package pgwarehouse

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Row-level security needs to know who a query runs for, and the settings
// that say it (analyticsbot.user_id, user_email, channel_id) are ordinary
// ones any role may change: a query calling set_config first would be
// someone else. So the executor signs them: analyticsbot.signature is an
// HMAC-SHA256, with the key of migration 00020 that only the bot's own
// login reads, over the settings, the backend's PID and the transaction's
// start. The SECURITY DEFINER functions of the identity schema
// (store.IdentitySchema: analyticsbot_identity.user_email() and its
// siblings) recompute it and return the setting only when it matches: a
// query that changed a setting gets NULL, and a signature copied out of
// one transaction is worthless in any other.

// identityTag starts every signed message, so a signature of this kind is
// never one of anything else.
const identityTag = "analyticsbot identity 1"

// identityMessage is what a signature vouches for: the settings of one
// transaction of one backend.
type identityMessage struct {
	pid                      uint32
	xactMicros               int64 // the transaction's start, in microseconds since 1970
	userID, email, channelID string
}

// sign is the message's signature with key, as migration 00020's
// verified() computes it: HMAC-SHA256 over the netstrings (length in
// bytes, ":", the value, ",") of the tag, the PID, the start, the user
// id, the email and the channel, in lower-case hex.
func (m identityMessage) sign(key []byte) string {
	mac := hmac.New(sha256.New, key)
	for _, v := range []string{identityTag, strconv.FormatUint(uint64(m.pid), 10), strconv.FormatInt(m.xactMicros, 10), m.userID, m.email, m.channelID} {
		mac.Write([]byte(strconv.Itoa(len(v)) + ":" + v + ","))
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// queueIdentity queues on b the statement that sets
// analyticsbot.signature for m, in a transaction that has set m's settings
// already; without a key it queues none, and the identity functions return
// NULL. It reports whether it queued one.
func (e *Executor) queueIdentity(b *pgx.Batch, m identityMessage) bool {
	if len(e.cfg.IdentityKey) == 0 {
		return false
	}
	b.Queue(`SELECT set_config('analyticsbot.signature', $1, true)`, m.sign(e.cfg.IdentityKey))
	return true
}

// signed is a batch that begins with the statement signing who the
// query runs for, if there is one: the caller queues its one statement
// after it, and the two take one round trip. When the signature fails
// the server skips the statement (the batch is one pipeline with one
// Sync), so nothing runs unsigned.
type signed struct {
	b     *pgx.Batch
	signs bool
	// large is set by a read that took a row larger than largeRow, or was
	// cut at MaxBytes: its connection is closed, not pooled (inReadOnlyTx).
	large *bool
}

// send queues sql and sends the batch in tx, and returns the results with
// the signature's already read: sql's are next.
func (s signed) send(ctx context.Context, tx pgx.Tx, sql string) (pgx.BatchResults, error) {
	s.b.Queue(sql)
	br := tx.SendBatch(ctx, s.b)
	if s.signs {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, fmt.Errorf("sign who the query runs for: %w", err)
		}
	}
	return br, nil
}
