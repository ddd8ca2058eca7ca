package cubewarehouse

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
	"cube-1": {
		{`{"measures":["Orders.count"]}`, "b7cfbbfcbeb82ec9"},
		{`{"measures":["Orders.count","Orders.total"],"dimensions":["Orders.status"],"order":{"Orders.count":"desc"},"limit":10}`, "f708be5557e9023d"},
		{`{"measures":["Orders.count"],"timeDimensions":[{"dimension":"Orders.createdAt","granularity":"month","dateRange":["2024-01-01","2024-12-31"]}]}`, "d436f3680331feba"},
		{`{"measures":["Orders.count"],"filters":[{"member":"Orders.status","operator":"equals","values":["shipped","completed"]}]}`, "b5912e7479717684"},
		{`{"measures":["Orders.count"],"filters":[{"or":[{"member":"Orders.total","operator":"gt","values":["100"]},{"member":"Users.city","operator":"set"}]}],"segments":["Users.active"]}`, "b6df4dbecbb110ec"},
	},
}

// The fingerprints of FingerprintForm are the ones pinned for it.
func TestFingerprintForm(t *testing.T) {
	t.Parallel()
	warehousetest.CheckFingerprintForm(t, FingerprintForm, fingerprintsOfForm, fingerprint)
}
