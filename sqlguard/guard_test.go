package sqlguard

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	p := Policy{Schemas: []string{"analytics"}, Tables: []string{"apps", "genres", "app_genres"}}
	tests := []struct {
		name string
		sql  string
		want Class // "" means accepted
	}{
		{"simple select", "SELECT count(*) FROM apps WHERE release_year = 2018", ""},
		{"qualified table", "SELECT name FROM analytics.apps LIMIT 5", ""},
		{"cte", "WITH g AS (SELECT * FROM genres) SELECT * FROM g JOIN app_genres USING (genre_id)", ""},
		{"union", "SELECT name FROM apps UNION ALL SELECT name FROM genres", ""},
		{"subquery", "SELECT * FROM (SELECT name FROM apps) t", ""},
		{"trailing semicolon", "SELECT 1;", ""},
		{"no table", "SELECT now()::date", ""},
		{"empty", "   ", ClassEmpty},
		{"only comment", "-- nothing", ClassEmpty},
		{"syntax", "SELEC 1", ClassSyntax},
		{"stacked", "SELECT 1; DROP TABLE apps", ClassStacked},
		{"insert", "INSERT INTO apps (name) VALUES ('x')", ClassNotSelect},
		{"update in comment disguise", "/* SELECT */ UPDATE apps SET price = 0", ClassNotSelect},
		{"drop", "DROP TABLE apps", ClassNotSelect},
		{"set", "SET transaction_read_only = off", ClassNotSelect},
		{"writable cte", "WITH d AS (DELETE FROM apps RETURNING *) SELECT * FROM d", ClassWritingCTE},
		{"nested writable cte", "SELECT * FROM (WITH d AS (UPDATE apps SET price = 1 RETURNING *) SELECT * FROM d) x", ClassWritingCTE},
		{"select into", "SELECT * INTO copy_of_apps FROM apps", ClassSelectInto},
		{"for update", "SELECT * FROM apps FOR UPDATE", ClassLocking},
		{"locking in subquery", "SELECT * FROM (SELECT * FROM apps FOR SHARE) s", ClassLocking},
		{"catalog unqualified", "SELECT * FROM pg_authid", ClassRelation},
		{"catalog qualified", "SELECT * FROM pg_catalog.pg_class", ClassRelation},
		{"other schema", "SELECT * FROM public.secrets", ClassRelation},
		{"cross database", "SELECT * FROM otherdb.analytics.apps", ClassRelation},
		{"too long", "SELECT '" + strings.Repeat("x", 20001) + "'", ClassTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want accepted", tt.sql, err)
				}
				return
			}
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Check(%q) = %v, want a rejection of class %s", tt.sql, err, tt.want)
			}
			if rej.Class != tt.want {
				t.Errorf("Check(%q) class = %s (%s), want %s", tt.sql, rej.Class, rej.Reason, tt.want)
			}
			if rej.Reason == "" {
				t.Errorf("Check(%q): empty reason", tt.sql)
			}
		})
	}
}

func TestCheckReasonNamesTables(t *testing.T) {
	t.Parallel()
	err := Check("SELECT * FROM games", Policy{Schemas: []string{"analytics"}, Tables: []string{"apps"}})
	if err == nil || !strings.Contains(err.Error(), "apps") {
		t.Errorf("got %v, want a reason that lists the real table apps", err)
	}
}
