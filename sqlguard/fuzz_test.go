package sqlguard

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are hand-written hostile and borderline statements; the TPC-H
// queries and, where the machine has them, sqlmap payloads are added too.
var fuzzSeeds = []string{
	"",
	";",
	"SELECT 1",
	"SELECT name FROM apps",
	"SELECT name FROM apps LIMIT 5000",
	"SELECT name FROM apps LIMIT ALL",
	"SELECT name FROM apps LIMIT NULL",
	"SELECT name FROM apps LIMIT 10000000000",
	"SELECT name FROM apps LIMIT 2.5e3",
	"SELECT name FROM apps LIMIT '5000'",
	"SELECT name FROM apps LIMIT (SELECT 5000)",
	"SELECT name FROM apps ORDER BY name FETCH FIRST 5000 ROWS ONLY",
	"SELECT name FROM apps ORDER BY name FETCH FIRST 5 ROWS WITH TIES",
	"SELECT name FROM apps OFFSET 5",
	"SELECT name FROM apps; ",
	"SELECT name FROM apps\x00",
	"SELECT 1\x00; DROP TABLE apps",
	"SELECT name FROM apps -- trailing comment",
	"SELECT name FROM apps /* open comment",
	"SELECT name FROM apps UNION SELECT name FROM genres LIMIT 3",
	"(SELECT name FROM apps LIMIT 2000) UNION ALL (SELECT name FROM genres)",
	"WITH a AS (SELECT * FROM apps) SELECT * FROM a",
	"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
	"WITH d AS (DELETE FROM apps RETURNING *) SELECT * FROM d",
	"SELECT * FROM (WITH pg_user AS (SELECT 1) SELECT * FROM pg_user) s, pg_user",
	"(WITH pg_user AS(SELECT )SELECT FROM pg_user)",
	"WITH pg_user AS (SELECT 1) SELECT * FROM pg_catalog.pg_user",
	"WITH pg_user AS (SELECT * FROM pg_user) SELECT * FROM pg_user",
	"WITH a AS (SELECT * FROM pg_user), pg_user AS (SELECT 1) SELECT * FROM a",
	"WITH RECURSIVE a AS (SELECT * FROM pg_user), pg_user AS (SELECT 1) SELECT * FROM a",
	"SELECT 1; DROP TABLE apps",
	"SELECT pg_sleep(10)",
	"SELECT \"pg_sleep\"(10)",
	"SELECT PG_CATALOG.PG_SLEEP(1)",
	"SELECT * FROM pg_sleep(1)",
	"SELECT set_config('statement_timeout', '0', false)",
	"SELECT pg_read_file('/etc/passwd')",
	"SELECT lo_import('/etc/passwd')",
	"SELECT dblink_exec('dbname=x', 'DROP TABLE apps')",
	"SELECT query_to_xml('DELETE FROM apps RETURNING 1', true, true, '')",
	"SELECT nextval('apps_id_seq')",
	"SELECT * FROM apps FOR UPDATE",
	"SELECT * INTO t FROM apps",
	"SELECT usename, passwd FROM pg_shadow",
	"SELECT * FROM information_schema.tables",
	"SELECT * FROM public.secrets",
	"SELECT * FROM otherdb.analytics.apps",
	"SELECT 1 OPERATOR(pg_catalog.+) 1",
	"SELECT U&\"\\0070g_sleep\"(1)",
	"SELECT $$x$$ FROM apps",
	"/* /* nested */ */ SELECT 1",
	"SELECT E'\\x27' FROM apps",
	"SELECT count(*) FROM generate_series(1, 100000000000)",
	"EXPLAIN ANALYZE SELECT 1",
	"SET ROLE postgres",
	"COPY apps TO PROGRAM 'id'",
	"DO $$BEGIN PERFORM pg_sleep(1); END$$",
	"SELECT count(*) FROM analytics.apps WHERE CAST(name AS int) > 0",
	"SELECT count(DISTINCT lower(a.name)) FROM analytics.apps a WHERE a.name LIKE 'x%' GROUP BY a::text",
}

// FuzzCheck asserts Check's safety properties on arbitrary text: it never
// panics; whatever it accepts passes the independent verification, and a
// policy that masks a column accepts no more; it
// rejects only with a classified, explained *Rejection; Guard accepts
// exactly what Check accepts, its output passes Check and the verification
// again, and with a RowLimit it ends in a top-level LIMIT of at most that
// many rows (without one, Guard returns the text unchanged).
//
//	go test -run '^$' -fuzz FuzzCheck -fuzztime 60s ./sqlguard/
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, uint16(1001))
	}
	for _, q := range readCorpusSQL(f, filepath.Join("testdata", "tpch"), "q[0-9][0-9].sql") {
		f.Add(q.sql, uint16(100))
	}
	if _, err := os.Stat(sqlmapDir); err == nil {
		// A sample of sqlmap-built statements, built at run time: the
		// payload files may not be copied into the repository.
		cases, _ := sqlmapCases(f, sqlmapPostgresQueries(f))
		for i := 0; i < len(cases); i += len(cases)/50 + 1 {
			f.Add(cases[i].sql, uint16(1001))
		}
	}
	f.Fuzz(func(t *testing.T, sql string, rowLimit uint16) {
		p := sqlmapPolicy
		err := Check(sql, p)
		if err != nil {
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Check(%q) = %T %v, want *Rejection", sql, err, err)
			}
			if rej.Class == "" || rej.Reason == "" {
				t.Fatalf("Check(%q) = %#v, want a class and a reason", sql, rej)
			}
		} else if verr := indepVerify(sql, p.Schemas, p.Tables); verr != nil {
			t.Fatalf("Check accepted %q, but %v", sql, verr)
		}
		// A masked column only narrows what is accepted.
		masked := p
		masked.MaskedColumns = []string{"analytics.apps.name"}
		if merr := Check(sql, masked); merr == nil && err != nil {
			t.Fatalf("Check(%q) with a masked column accepts what it refuses without: %v", sql, err)
		} else if rej := (*Rejection)(nil); merr != nil && (!errors.As(merr, &rej) || rej.Reason == "") {
			t.Fatalf("Check(%q) with a masked column = %T %v, want a *Rejection with a reason", sql, merr, merr)
		}

		p.RowLimit = int(rowLimit)
		out, gerr := Guard(sql, p)
		if (gerr == nil) != (err == nil) {
			t.Fatalf("Guard(%q, RowLimit %d) error = %v, but Check = %v", sql, p.RowLimit, gerr, err)
		}
		if gerr != nil {
			return
		}
		if p.RowLimit == 0 {
			if out != sql {
				t.Fatalf("Guard(%q, RowLimit 0) = %q, want the text unchanged", sql, out)
			}
			return
		}
		if cerr := Check(out, p); cerr != nil {
			t.Fatalf("Guard(%q, RowLimit %d) = %q, which Check rejects: %v", sql, p.RowLimit, out, cerr)
		}
		if verr := indepVerify(out, p.Schemas, p.Tables); verr != nil {
			t.Fatalf("Guard(%q, RowLimit %d) = %q, but %v", sql, p.RowLimit, out, verr)
		}
		limit, ok, lerr := indepTopLimit(out)
		if lerr != nil || !ok || limit > float64(p.RowLimit) {
			t.Fatalf("Guard(%q, RowLimit %d) = %q: top-level limit %v (bounded %v, %v), want <= %d", sql, p.RowLimit, out, limit, ok, lerr, p.RowLimit)
		}
	})
}
