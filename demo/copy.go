package demo

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// dimension describes one lookup table (developers, genres, ...) and its link table.
type dimension struct {
	table     string // e.g. "developers"
	idColumn  string // e.g. "developer_id"
	linkTable string // e.g. "app_developers"
	ranked    bool   // link table has a rank column (1-based position in the app's list)
	names     func(*app) []string
}

// dimensions lists every multi-valued CSV column and where it is normalized to.
var dimensions = []dimension{
	{table: "developers", idColumn: "developer_id", linkTable: "app_developers", names: func(a *app) []string { return a.developers }},
	{table: "publishers", idColumn: "publisher_id", linkTable: "app_publishers", names: func(a *app) []string { return a.publishers }},
	{table: "genres", idColumn: "genre_id", linkTable: "app_genres", names: func(a *app) []string { return a.genres }},
	{table: "tags", idColumn: "tag_id", linkTable: "app_tags", ranked: true, names: func(a *app) []string { return a.tags }},
	{table: "categories", idColumn: "category_id", linkTable: "app_categories", names: func(a *app) []string { return a.categories }},
	{table: "platforms", idColumn: "platform_id", linkTable: "app_platforms", names: func(a *app) []string { return a.platforms }},
}

// copyApps bulk-loads the apps table; generated columns are left to Postgres.
func copyApps(ctx context.Context, tx pgx.Tx, schema string, apps []app) error {
	cols := []string{
		"app_id", "name", "release_date", "english", "required_age", "achievements",
		"positive_ratings", "negative_ratings", "average_playtime_minutes",
		"median_playtime_minutes", "owners_min", "owners_max", "price",
	}
	rows := make([][]any, len(apps))
	for i := range apps {
		a := &apps[i]
		rows[i] = []any{
			a.id, a.name, a.releaseDate, a.english, a.requiredAge, a.achievements,
			a.positive, a.negative, a.avgPlaytime, a.medianPlaytime, a.ownersMin, a.ownersMax, a.price,
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, "apps"}, cols, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy apps: %w", err)
	}
	return nil
}

// copyDimension loads one lookup table and its link table. Ids are assigned in sorted name
// order, so every load of the same file produces the same ids; the serial sequence is then
// moved past them so a later INSERT without an id still works.
func copyDimension(ctx context.Context, tx pgx.Tx, schema string, d dimension, apps []app) error {
	var names []string
	for i := range apps {
		names = append(names, d.names(&apps[i])...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	ids := make(map[string]int32, len(names))
	dimRows := make([][]any, len(names))
	for i, n := range names {
		ids[n] = int32(i + 1)
		dimRows[i] = []any{int32(i + 1), n}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, d.table}, []string{d.idColumn, "name"}, pgx.CopyFromRows(dimRows)); err != nil {
		return fmt.Errorf("copy %s: %w", d.table, err)
	}
	if len(names) > 0 {
		seq := pgx.Identifier{schema, d.table}.Sanitize()
		if _, err := tx.Exec(ctx, "SELECT setval(pg_get_serial_sequence($1, $2), $3)", seq, d.idColumn, len(names)); err != nil {
			return fmt.Errorf("reset %s sequence: %w", d.table, err)
		}
	}

	linkCols := []string{"app_id", d.idColumn}
	if d.ranked {
		linkCols = append(linkCols, "rank")
	}
	var linkRows [][]any
	for i := range apps {
		for pos, n := range d.names(&apps[i]) {
			row := []any{apps[i].id, ids[n]}
			if d.ranked {
				row = append(row, int32(pos+1))
			}
			linkRows = append(linkRows, row)
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, d.linkTable}, linkCols, pgx.CopyFromRows(linkRows)); err != nil {
		return fmt.Errorf("copy %s: %w", d.linkTable, err)
	}
	return nil
}
