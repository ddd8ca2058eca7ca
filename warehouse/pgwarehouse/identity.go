package pgwarehouse

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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

// signIdentity sets analyticsbot.signature for m in tx, which has set m's
// settings already; without a key it sets none, and the identity functions
// return NULL.
func (e *Executor) signIdentity(ctx context.Context, tx pgx.Tx, m identityMessage) error {
	if len(e.cfg.IdentityKey) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `SELECT set_config('analyticsbot.signature', $1, true)`, m.sign(e.cfg.IdentityKey))
	return err
}
