package pgwarehouse

import (
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// fingerprintsOfForm pins a few queries' fingerprints under the form that
// gives them. Stored examples carry their fingerprint's form, and the bot
// re-fingerprints at start only those of another form: a change to the
// fingerprint that keeps the form's name would leave every stored example
// under a fingerprint no query gives any more (no verified badge, the
// examples file stored twice).
var fingerprintsOfForm = map[string][][2]string{
	"pg-1": {
		{"SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018", "dceb723abc2e82eaefb447ed4882e021"},
		{"SELECT name FROM analytics.apps WHERE genre IN ('Action', 'RPG') ORDER BY name LIMIT 10", "b24693ef72b2195d302e72d92e9a3e42"},
		{"SELECT developer, avg(price)::numeric(10,2) FROM analytics.apps GROUP BY 1 HAVING count(*) > 5", "1ef6471e3df66029064fbcf004f4624a"},
		{"WITH y AS (SELECT release_year, count(*) n FROM analytics.apps GROUP BY 1) SELECT * FROM y WHERE n > 3", "62fd95e024b98db349ca52a15a473172"},
		{"SELECT a.name, b.total FROM analytics.apps a LEFT JOIN analytics.sales b ON b.app_id = a.id WHERE b.total BETWEEN 1 AND 100 AND a.name ILIKE '%war%'", "0bc7e6dea27823fb62aa5fd3d6ee9bfb"},
	},
}

// The fingerprints of FingerprintForm are the ones pinned for it.
func TestFingerprintForm(t *testing.T) {
	t.Parallel()
	warehousetest.CheckFingerprintForm(t, FingerprintForm, fingerprintsOfForm, fingerprint)
}
