package pgwarehouse

import (
	"crypto/sha256"
	"os"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// corpusQueries are realistic queries: the demo's (the scripted model's
// answers to its suggested questions) and Defog's gold queries.
func corpusQueries(tb testing.TB) []string {
	tb.Helper()
	raw, err := os.ReadFile("../../evals/defog.yaml")
	require.NoError(tb, err)
	var f struct{ Items []struct{ SQL string } }
	require.NoError(tb, yaml.Unmarshal(raw, &f))
	qs := []string{
		"SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018",
		"SELECT count(*) AS free_games FROM analytics.apps WHERE is_free",
		"SELECT name, positive_ratings, positive_pct FROM analytics.apps ORDER BY positive_ratings DESC LIMIT 10",
		"SELECT p.name AS publisher, count(*) AS games FROM analytics.apps a JOIN analytics.app_publishers ap ON ap.app_id = a.app_id JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id GROUP BY p.name ORDER BY games DESC, publisher LIMIT 10",
		"SELECT g.name AS genre, round(avg(a.price), 2) AS avg_price_gbp, count(*) AS paid_games FROM analytics.apps a JOIN analytics.app_genres ag ON ag.app_id = a.app_id JOIN analytics.genres g ON g.genre_id = ag.genre_id WHERE NOT a.is_free GROUP BY g.name ORDER BY avg_price_gbp DESC",
		"SELECT release_year, count(*) AS games FROM analytics.apps GROUP BY release_year ORDER BY release_year",
		"SELECT count(*) AS linux_games FROM analytics.apps a JOIN analytics.app_platforms ap ON ap.app_id = a.app_id JOIN analytics.platforms p ON p.platform_id = ap.platform_id WHERE p.name = 'linux'",
		"SELECT count(DISTINCT ap.app_id) AS games FROM analytics.app_publishers ap JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id WHERE p.name IN ('Bethesda Softworks', 'Bethesda-Softworks', 'Bethesda-Soft')",
	}
	for _, it := range f.Items {
		qs = append(qs, it.SQL)
	}
	return qs
}

// relaid writes sql another way, token by token: a comment first, each
// token on a line of its own, keywords in the other letter case, a
// semicolon and a comment at the end. Constants and identifiers are left
// as written.
func relaid(t *testing.T, sql string) string {
	t.Helper()
	scan, err := pg_query.Scan(sql)
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("/* written another way */\n")
	for _, tok := range scan.GetTokens() {
		text := sql[tok.GetStart():tok.GetEnd()]
		if tok.GetKeywordKind() != pg_query.KeywordKind_NO_KEYWORD {
			if text == strings.ToUpper(text) {
				text = strings.ToLower(text)
			} else {
				text = strings.ToUpper(text)
			}
		}
		b.WriteString(text)
		b.WriteString("\n\t")
	}
	b.WriteString("; -- the end")
	return b.String()
}

// fingerprintBefore is the fingerprint before it hashed the parse tree:
// pg_query's fingerprint, then a hash of the deparsed query.
func fingerprintBefore(t testing.TB, sql string) string {
	t.Helper()
	fp, err := warehousetest.EarlierFingerprint(sql)
	require.NoError(t, err)
	return fp
}

// Over realistic queries, each written another way keeps its fingerprint,
// and the fingerprint tells the queries apart exactly as the one before
// it did: what was one query stays one, what was two stays two.
func TestFingerprintCorpus(t *testing.T) {
	t.Parallel()
	qs := corpusQueries(t)
	byNew, byOld := map[string]string{}, map[string]string{}
	for _, q := range qs {
		fp, err := fingerprint(q)
		require.NoError(t, err, q)
		assert.Regexp(t, `^[0-9a-f]{32}$`, fp)
		other := relaid(t, q)
		again, err := fingerprint(other)
		require.NoError(t, err, other)
		assert.Equal(t, fp, again, "%s\nwritten as\n%s", q, other)
		old := fingerprintBefore(t, q)
		if prev, ok := byNew[fp]; ok {
			assert.Equal(t, byOld[old], prev, "one fingerprint, two queries before: %s\n%s", prev, q)
		}
		if prev, ok := byOld[old]; ok {
			assert.Equal(t, byNew[fp], prev, "one query before, two fingerprints: %s\n%s", prev, q)
		}
		byNew[fp], byOld[old] = q, q
	}
	assert.Len(t, byNew, len(byOld))
	assert.Greater(t, len(byNew), 300, "distinct queries")
}

// Constants of another value or type, names quoted into other case, an
// explicit sort order and the order of items make another query; how the
// same one is written does not.
func TestFingerprintTellsApart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		a, b string
		same bool
	}{
		{"semicolon and parentheses", "SELECT name FROM analytics.apps WHERE price > 5", "(SELECT name FROM analytics.apps WHERE (price > 5));", true},
		{"quoted lower case", "SELECT Name FROM Analytics.Apps", `SELECT "name" FROM "analytics"."apps"`, true},
		{"cast spelt two ways", "SELECT price::numeric FROM analytics.apps", "SELECT CAST(price AS numeric) FROM analytics.apps", true},
		{"!= and <>", "SELECT name FROM analytics.apps WHERE price != 0", "SELECT name FROM analytics.apps WHERE price <> 0", true},
		{"float constants", "SELECT name FROM analytics.apps WHERE price > 1.5", "SELECT name FROM analytics.apps WHERE price > 1.6", false},
		{"string constants", "SELECT name FROM analytics.apps WHERE name = 'dota'", "SELECT name FROM analytics.apps WHERE name = 'Dota'", false},
		{"limit", "SELECT name FROM analytics.apps LIMIT 10", "SELECT name FROM analytics.apps LIMIT 11", false},
		{"quoted upper case", "SELECT name FROM analytics.apps", `SELECT "Name" FROM analytics.apps`, false},
		{"order of columns", "SELECT name, price FROM analytics.apps", "SELECT price, name FROM analytics.apps", false},
		{"operator", "SELECT name FROM analytics.apps WHERE price > 5", "SELECT name FROM analytics.apps WHERE price >= 5", false},
		{"boolean", "SELECT name FROM analytics.apps WHERE is_free = true", "SELECT name FROM analytics.apps WHERE is_free = false", false},
	} {
		a, err := fingerprint(c.a)
		require.NoError(t, err, c.a)
		b, err := fingerprint(c.b)
		require.NoError(t, err, c.b)
		if c.same {
			assert.Equal(t, a, b, c.name)
		} else {
			assert.NotEqual(t, a, b, c.name)
		}
	}
}

// BenchmarkTurnFingerprints is the fingerprinting a new question's query
// costs after the guard has read it, over the demo's queries and Defog's
// gold queries: before, pg_query's fingerprint (which parses the text
// again) and the deparsed tree; now a hash of the guard's encoded tree.
func BenchmarkTurnFingerprints(b *testing.B) {
	qs := corpusQueries(b)
	// What the guard keeps of each (not every Defog query is within
	// the guard's default policy, so they are parsed here as it parses).
	guarded := make([]sqlguard.Guarded, len(qs))
	for i, q := range qs {
		encoded, err := parser.ParseToProtobuf(q)
		require.NoError(b, err, q)
		tree, err := pg_query.Parse(q)
		require.NoError(b, err, q)
		guarded[i] = sqlguard.Guarded{Run: q, Tree: tree, Encoded: encoded}
	}
	for _, set := range []struct {
		name string
		n    int
	}{{"demo", 8}, {"defog", len(qs) - 8}} {
		from := len(qs) - set.n
		if set.name == "demo" {
			from = 0
		}
		b.Run(set.name+"/before", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := from; i < from+set.n; i++ {
					if _, err := pg_query.Fingerprint(qs[i]); err != nil {
						b.Fatal(err)
					}
					canonical, err := pg_query.Deparse(guarded[i].Tree)
					if err != nil {
						b.Fatal(err)
					}
					sha256.Sum256([]byte(canonical))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*set.n), "ns/query")
		})
		b.Run(set.name+"/after", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := from; i < from+set.n; i++ {
					if _, err := fingerprintEncoded(guarded[i].Encoded); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*set.n), "ns/query")
		})
	}
}
