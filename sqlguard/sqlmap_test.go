package sqlguard

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sqlmap's payload definitions are GPLv2 and must never be copied into this
// repository: the test reads them in place from the machine's shared corpora.
const sqlmapDir = "../../shared/corpora/sqlmap-payloads"

// sqlmapPolicy is what the bot would pass for an analytics schema.
var sqlmapPolicy = Policy{Schemas: []string{"analytics"}, Tables: []string{"apps", "genres", "app_genres"}}

// sqlmapHost is the benign statement the payloads are spliced into, as a
// model tricked into echoing a user's text would write it.
const sqlmapHost = "SELECT name FROM apps WHERE name = 'x'"

// sqlmapTest is the part of a <test> element the test uses.
type sqlmapTest struct {
	Title   string `xml:"title"`
	Where   string `xml:"where"`
	Vector  string `xml:"vector"`
	Request struct {
		Payload    string `xml:"payload"`
		Comment    string `xml:"comment"`
		Char       string `xml:"char"`
		Comparison string `xml:"comparison"`
	} `xml:"request"`
	DBMS []string `xml:"details>dbms"`
}

// sqlmapCase is one complete statement built from a payload.
type sqlmapCase struct {
	source string // file, test title and embedding, for messages
	sql    string
}

// TestSqlmapPayloads splices every sqlmap payload and vector, with its
// placeholders filled in, into a benign SELECT in several ways, and asserts
// that whatever Check accepts passes the independent verification: one
// read-only SELECT over the analytics tables calling no dangerous function.
func TestSqlmapPayloads(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(sqlmapDir); err != nil {
		t.Skipf("sqlmap payloads not on this machine (%s): %v", sqlmapDir, err)
	}
	queries := sqlmapPostgresQueries(t)
	cases, tests := sqlmapCases(t, queries)
	require.Greater(t, tests, 300, "sqlmap <test> entries read")
	require.Greater(t, len(cases), 5000, "statements built from the payloads")

	rejected := map[Class]int{}
	accepted, escapes := 0, 0
	for _, c := range cases {
		err := Check(c.sql, sqlmapPolicy)
		if err == nil {
			accepted++
			if verr := indepVerify(c.sql, sqlmapPolicy.Schemas, sqlmapPolicy.Tables); verr != nil {
				escapes++
				if escapes <= 20 {
					t.Errorf("Check accepted an unsafe statement (%s): %v\n%s", c.source, verr, c.sql)
				}
			}
			continue
		}
		var rej *Rejection
		if !errors.As(err, &rej) {
			t.Fatalf("Check(%s) returned %T %v, want *Rejection", c.source, err, err)
		}
		rejected[rej.Class]++
	}
	if escapes > 20 {
		t.Errorf("... %d unsafe statements accepted in all", escapes)
	}
	classes := make([]string, 0, len(rejected))
	for c, n := range rejected {
		classes = append(classes, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(classes)
	t.Logf("sqlmap: %d tests, %d PostgreSQL enumeration queries, %d statements, %d accepted (all verified safe: %v), %d rejected: %s",
		tests, len(queries), len(cases), accepted, escapes == 0, len(cases)-accepted, strings.Join(classes, " "))
}

// sqlmapCases builds the statements for every test of payloads/*.xml and
// returns them deduplicated, with the number of tests read.
func sqlmapCases(t testing.TB, queries []string) ([]sqlmapCase, int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sqlmapDir, "payloads", "*.xml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no payload files in %s/payloads", sqlmapDir)
	seen := map[string]bool{}
	var cases []sqlmapCase
	tests := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		var root struct {
			Tests []sqlmapTest `xml:"test"`
		}
		require.NoError(t, xml.Unmarshal(b, &root), "parse %s", file)
		tests += len(root.Tests)
		for _, st := range root.Tests {
			for _, c := range sqlmapTestCases(st, queries) {
				if !seen[c.sql] {
					seen[c.sql] = true
					c.source = filepath.Base(file) + ": " + st.Title + ": " + c.source
					cases = append(cases, c)
				}
			}
		}
	}
	return cases, tests
}

// sqlmapTestCases embeds each filled-in form of st's payload, comparison and
// vector after the WHERE condition (with and without the test's comment),
// in a string-literal injection, as a stacked statement and, for tests that
// replace the original value, in place of the value.
func sqlmapTestCases(st sqlmapTest, queries []string) []sqlmapCase {
	// Other databases' tests get fewer enumeration queries: their syntax
	// mostly fails to parse, and every query costs a Check per embedding.
	if !st.forPostgres() && len(queries) > 3 {
		queries = queries[:3]
	}
	comment := sqlmapFixed.Replace(st.Request.Comment)
	var out []sqlmapCase
	for _, raw := range []string{st.Request.Payload, st.Request.Comparison, st.Vector} {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		for _, p := range sqlmapFill(raw, st.Request.Char, queries) {
			p = strings.TrimSpace(p)
			out = append(out,
				sqlmapCase{"after WHERE", sqlmapHost + " " + p},
				sqlmapCase{"string injection", sqlmapHost + " " + p + " AND 'qzvx'='qzvx'"},
				sqlmapCase{"stacked", sqlmapHost + "; " + strings.TrimPrefix(p, ";")},
			)
			if comment != "" {
				out = append(out, sqlmapCase{"after WHERE with comment", sqlmapHost + " " + p + comment})
			}
			switch st.Where {
			case "2":
				out = append(out, sqlmapCase{"negated value", "SELECT name FROM apps WHERE app_id = -4721 " + p})
			case "3":
				out = append(out, sqlmapCase{"replaced value", "SELECT name FROM apps WHERE name = " + p})
			}
		}
	}
	return out
}

func (st sqlmapTest) forPostgres() bool {
	if len(st.DBMS) == 0 {
		return true
	}
	for _, d := range st.DBMS {
		if strings.Contains(d, "PostgreSQL") {
			return true
		}
	}
	return false
}

// sqlmapFixed fills the placeholders that take one plausible value.
var sqlmapFixed = strings.NewReplacer(
	"[SLEEPTIME]", "5", "[DELAYED]", "5", "[ORIGVALUE]", "1", "[CHAR]", "NULL",
	"[COLSTART]", "1", "[COLSTOP]", "3",
	"[DELIMITER_START]", "qkjpq", "[DELIMITER_STOP]", "qpzxq",
	"[GENERIC_SQL_COMMENT]", "-- qzvx",
	"[SPACE_REPLACE]", "qspq", "[DOLLAR_REPLACE]", "qdlq", "[AT_REPLACE]", "qatq", "[HASH_REPLACE]", "qhsq",
)

var (
	sqlmapRandNum = regexp.MustCompile(`\[RANDNUM(\d*)\]`)
	sqlmapRandStr = regexp.MustCompile(`\[RANDSTR(\d*)\]`)
)

// sqlmapFill returns the forms of payload s: fixed placeholders filled,
// [INFERENCE] as a tautology or as an inference over each PostgreSQL query,
// [QUERY] as each query, and [UNION] as a one- and a three-column UNION that
// carries a query, closed with a comment.
func sqlmapFill(s, char string, queries []string) []string {
	s = sqlmapFixed.Replace(s)
	s = sqlmapRandNum.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(sqlmapRandNum.FindStringSubmatch(m)[1])
		return strconv.Itoa(4721 + n)
	})
	s = sqlmapRandStr.ReplaceAllStringFunc(s, func(m string) string {
		return "qzvx" + sqlmapRandStr.FindStringSubmatch(m)[1]
	})
	forms := []string{s}
	expand := func(placeholder string, values []string) {
		var next []string
		for _, f := range forms {
			if !strings.Contains(f, placeholder) {
				next = append(next, f)
				continue
			}
			for _, v := range values {
				next = append(next, strings.ReplaceAll(f, placeholder, v))
			}
		}
		forms = next
	}
	inferences := []string{"4721=4721"}
	unions := []string{}
	char = sqlmapFixed.Replace(char)
	if char == "" {
		char = "NULL"
	}
	for _, q := range queries {
		inferences = append(inferences, fmt.Sprintf("ASCII(SUBSTRING((%s)::text FROM 1 FOR 1))>64", q))
		carrier := fmt.Sprintf("'qkjpq'||(%s)::text||'qpzxq'", q)
		unions = append(unions,
			" UNION ALL SELECT "+carrier+"-- qzvx",
			" UNION ALL SELECT "+char+","+carrier+","+char+"-- qzvx")
	}
	expand("[INFERENCE]", inferences)
	expand("[QUERY]", queries)
	expand("[UNION]", unions)
	return forms
}

// sqlmapPostgresQueries reads the enumeration SQL sqlmap runs against
// PostgreSQL (banner, users, password hashes, privileges, catalog listings,
// the dblink gadget) from queries.xml, with %s and %d filled in.
func sqlmapPostgresQueries(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sqlmapDir, "queries.xml"))
	require.NoError(t, err)
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	fill := strings.NewReplacer("%s", "name", "%d", "0", "%%", "%")
	var out []string
	inPostgres := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break // io.EOF; a malformed file shows as too few queries below
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			if end, ok := tok.(xml.EndElement); ok && end.Name.Local == "dbms" {
				inPostgres = false
			}
			continue
		}
		for _, a := range el.Attr {
			switch {
			case el.Name.Local == "dbms" && a.Name.Local == "value":
				inPostgres = a.Value == "PostgreSQL"
			case !inPostgres:
			case el.Name.Local == "banner" || el.Name.Local == "current_user" || el.Name.Local == "current_db",
				strings.HasPrefix(strings.TrimLeft(strings.ToUpper(a.Value), "("), "SELECT"):
				out = append(out, fill.Replace(a.Value))
			}
		}
	}
	require.Greater(t, len(out), 20, "PostgreSQL queries read from queries.xml")
	// The first three serve every other database's tests: a catalog read
	// of password hashes, the dblink gadget and the banner.
	sort.SliceStable(out, func(i, j int) bool { return sqlmapQueryRank(out[i]) < sqlmapQueryRank(out[j]) })
	return out
}

func sqlmapQueryRank(q string) int {
	switch {
	case strings.Contains(q, "pg_shadow"):
		return 0
	case strings.Contains(q, "dblink"):
		return 1
	case strings.EqualFold(q, "VERSION()"):
		return 2
	}
	return 3
}
