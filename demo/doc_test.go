package demo

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoDoc is docs/demo-data.md, whose figures these tests hold.
func demoDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/demo-data.md")
	require.NoError(t, err)
	return string(b)
}

// docSection is the text of doc from the heading head to the next heading
// of the same level.
func docSection(t *testing.T, doc, head string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+head+"\n")
	require.True(t, ok, "docs/demo-data.md has %q", head)
	level := head[:strings.Index(head, " ")+1]
	if i := strings.Index(rest, "\n"+level); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// The row counts of docs/demo-data.md's schema table are the loaded tables'.
func TestDocTableRowCounts(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9,]+) \\|")
	rows := row.FindAllStringSubmatch(docSection(t, demoDoc(t), "## Schema (schema `analytics`)"), -1)
	require.Len(t, rows, 13, "the schema table lists the 13 demo tables")
	for _, m := range rows {
		want, err := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
		require.NoError(t, err)
		got := queryInt(t, pool, "SELECT count(*) FROM analytics."+pgx.Identifier{m[1]}.Sanitize())
		assert.Equal(t, want, got, "rows of %s: docs/demo-data.md says %s", m[1], m[2])
	}
}

// readerRows runs sql the way the bot runs generated SQL (docs/demo-data.md:
// as analyticsbot_reader with search_path = analytics) and returns its rows
// as PostgreSQL's text, one string per row, cells joined by " | ".
func readerRows(t *testing.T, sql string) []string {
	t.Helper()
	pool, _ := loadedPool(t)
	ctx := context.Background()
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck // read only
	_, err = tx.Exec(ctx, "SET LOCAL ROLE analyticsbot_reader; SET LOCAL search_path = analytics")
	require.NoError(t, err)
	rows, err := tx.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	require.NoError(t, err, "run %s", sql)
	defer rows.Close()
	var out []string
	for rows.Next() {
		raw := rows.RawValues()
		cells := make([]string, len(raw))
		for i, v := range raw {
			cells[i] = "NULL"
			if v != nil {
				cells[i] = string(v) // the text form: the simple protocol
			}
		}
		out = append(out, strings.Join(cells, " | "))
	}
	require.NoError(t, rows.Err())
	return out
}

// docs/demo-data.md's example questions: each SQL block, run as the bot
// runs generated SQL, gives the rows here, and the doc's answer above it
// states them.
func TestDocExampleQueries(t *testing.T) {
	t.Parallel()
	doc := demoDoc(t)
	section := docSection(t, doc, "## Example questions")
	examples := []struct {
		says string     // what the doc's answer states
		want [][]string // the rows of each statement of the block
	}{
		{"**1. How many games were released in 2018?** → **8160**", [][]string{{"8160"}}},
		{"→ **2560** games, **9.5 %**", [][]string{{"2560 | 9.5"}}},
		{"→ Portal 2 (98.65 %, 140,111\nreviews), Factorio (98.51), One Finger Death Punch (98.23), Iron Snout (98.04), OneShot (98.04)", [][]string{{
			"Portal 2 | 98.65 | 140111", "Factorio | 98.51 | 48641", "One Finger Death Punch | 98.23 | 14437",
			"Iron Snout | 98.04 | 14166", "OneShot | 98.04 | 11205"}}},
		{"→ **27** games; top by\nowners estimate: Dota 2 (100000000-200000000), Counter-Strike: Global Offensive, Team Fortress 2,\nLeft 4 Dead 2, Portal 2", [][]string{{"27"}, {
			"Dota 2 | 2013-07-09 | 0.00 | 100000000-200000000",
			"Counter-Strike: Global Offensive | 2012-08-21 | 0.00 | 50000000-100000000",
			"Team Fortress 2 | 2007-10-10 | 0.00 | 20000000-50000000",
			"Left 4 Dead 2 | 2009-11-19 | 7.19 | 10000000-20000000",
			"Portal 2 | 2011-04-18 | 7.19 | 10000000-20000000"}}},
		{"→ Indie 19,421; Action 11,903; Casual 10,210;\nAdventure 10,032; Strategy 5,247", [][]string{{
			"Indie | 19421", "Action | 11903", "Casual | 10210", "Adventure | 10032", "Strategy | 5247"}}},
		{"→ £7.88 (2014),\n£6.92, £6.55, £6.51, £6.22 (2018)", [][]string{{
			"2014 | 7.88 | 1473", "2015 | 6.92 | 2409", "2016 | 6.55 | 3922", "2017 | 6.51 | 5757", "2018 | 6.22 | 7301"}}},
		{"→ windows 27,070 (100.0 %), mac 8,066 (29.8 %),\nlinux 5,235 (19.3 %)", [][]string{{
			"windows | 27070 | 100.0", "mac | 8066 | 29.8", "linux | 5235 | 19.3"}}},
		{"→ PRICE 1058.2 h, Boundless 920.1, Shroud of the Avatar: Forsaken Virtues 910.3, X-Plane 11 736.2,\nMANDAGON 530.8", [][]string{{
			"PRICE | 1058.2 | 4431", "Boundless | 920.1 | 1639", "Shroud of the Avatar: Forsaken Virtues | 910.3 | 2082",
			"X-Plane 11 | 736.2 | 2476", "MANDAGON | 530.8 | 4849"}}},
		{"→ Valve 510,750,000 (30 games),\nUbisoft 81,205,000 (114), SEGA 78,145,000 (91), 2K 78,030,000 (59), PUBG Corporation 75,000,000 (1)", [][]string{{
			"Valve | 510750000 | 30", "Ubisoft | 81205000 | 114", "SEGA | 78145000 | 91", "2K | 78030000 | 59", "PUBG Corporation | 75000000 | 1"}}},
		{"→ 292030 The Witcher® 3: Wild Hunt (2015, £24.99),\nthen The Witcher Adventure Game, Thronebreaker: The Witcher Tales", [][]string{{
			"292030 | The Witcher® 3: Wild Hunt | 2015 | 24.99", "303800 | The Witcher Adventure Game | 2014 | 6.99",
			"973760 | Thronebreaker: The Witcher Tales | 2018 | 23.39"}}},
		{"→ **0**: the data ends in May 2019.", [][]string{{"0"}}},
	}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.Len(t, blocks, len(examples), "one SQL block per example question")
	for i, ex := range examples {
		assert.True(t, strings.Contains(section, ex.says), "docs/demo-data.md states example %d's answer: %q", i+1, ex.says)
		var got [][]string
		for _, q := range strings.Split(blocks[i][1], ";") {
			if strings.TrimSpace(q) != "" {
				got = append(got, readerRows(t, q))
			}
		}
		assert.Equal(t, ex.want, got, "example %d: the rows of %s", i+1, blocks[i][1])
	}
}

// What docs/demo-data.md says of the data as a whole.
func TestDocDataFacts(t *testing.T) {
	t.Parallel()
	doc := demoDoc(t)
	tests := []struct {
		says, sql string
		want      []string
	}{
		{"release dates run from 1997-06-30 to 2019-05-01", "SELECT min(release_date), max(release_date) FROM apps", []string{"1997-06-30 | 2019-05-01"}},
		{"Owners is a SteamSpy **range estimate** (13 buckets", "SELECT count(DISTINCT (owners_min, owners_max)) FROM apps", []string{"13"}},
		{"`positive_pct` = 100 × positive / (positive + negative), 0–100 with two decimals",
			"SELECT count(*) FROM apps WHERE positive_pct <> round(100.0 * positive_ratings / nullif(positive_ratings + negative_ratings, 0), 2) OR positive_pct NOT BETWEEN 0 AND 100",
			[]string{"0"}},
	}
	for _, tt := range tests {
		assert.True(t, strings.Contains(doc, tt.says), "docs/demo-data.md says %q", tt.says)
		assert.Equal(t, tt.want, readerRows(t, tt.sql), "%s: %s", tt.says, tt.sql)
	}
}

// README says how many questions the offline demo knows.
func TestReadmeCountsTheDemoQuestions(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`a scripted model that knows (\w+) questions`).FindSubmatch(readme)
	require.NotNil(t, m, "README says how many questions the demo knows")
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	assert.Equal(t, words[len(Questions())], string(m[1]), "README's count of the demo's questions")
}

// docs/eval.md's sample of an item's expected rows, games released per
// year, holds the demo data's counts.
func TestEvalDocRowsSample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/eval.md")
	require.NoError(t, err)
	sample := regexp.MustCompile("(?m)^\\| `rows` \\|.*`(\\[\\[.*\\]\\])`").FindSubmatch(doc)
	require.NotNil(t, sample, "docs/eval.md gives a sample of rows")
	pairs := regexp.MustCompile(`\[(\d{4}), (\d+)\]`).FindAllSubmatch(sample[1], -1)
	require.NotEmpty(t, pairs, "the sample's rows are [year, games]: %s", sample[1])
	fc := facts(t)
	for _, p := range pairs {
		games, err := strconv.ParseInt(string(p[2]), 10, 64)
		require.NoError(t, err)
		assert.Equal(t, fc.byYear[string(p[1])], games, "games released in %s", p[1])
	}
}
