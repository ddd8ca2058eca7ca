package storetest

import (
	"context"
	"testing"

	"github.com/analyticsbot/analyticsbot/store"
)

// ExampleRowVersions returns the version (xmin and ctid) of each stored
// example's row by id: an UPDATE of a row, even one writing the same
// values, gives it a new one, so a test tells an example left alone from
// one written again.
func ExampleRowVersions(t testing.TB, db *store.DB) map[int64]string {
	t.Helper()
	rows, err := db.Pool().Query(context.Background(), `SELECT id, xmin::text || ctid::text FROM examples`)
	if err != nil {
		t.Fatalf("read the examples' row versions: %v", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatalf("read the examples' row versions: %v", err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read the examples' row versions: %v", err)
	}
	return out
}
