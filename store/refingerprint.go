package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// RefingerprintEarlier brings the stored examples of backend whose
// fingerprint is of no form or of an earlier one than form to form: each
// takes the fingerprint fingerprint gives its query now, and form. It
// returns how many fingerprints changed. Every bot runs it at start, and
// a serving one (serve, mcp) now and then (EXAMPLES_REFINGERPRINT), so the
// examples stored before an upgrade, and those a replica of an earlier
// version adds during a rolling one, are still found by their queries
// (the verified badge, the file's and feedback's examples not stored
// twice). A form is earlier when it has form's name and a lower number
// ("pg-1" is earlier than "pg-2", warehouse.FormNumber); a form not named
// so is never earlier. Examples only move forward: a bot of an earlier
// version, started or serving beside a later one, leaves the later form's
// examples alone, so the two never take them back and forth. When every
// example is of form, no row is found.
//
// An example whose query no longer fingerprints, or whose new fingerprint
// another example of the same question has already, is left as it is,
// form included: the next call tries it again. Several processes may run
// it at once: an example another one brought to form meanwhile is not
// written again. Its statements have background maintenance's bound.
func (d *DB) RefingerprintEarlier(ctx context.Context, backend, form string, fingerprint func(query string) (string, error)) (int, error) {
	if form == "" {
		return 0, errors.New("refingerprint examples: the backend names no fingerprint form")
	}
	ctx = d.maintenance(ctx)
	rows, err := d.pool.Query(ctx, `SELECT id, question, query, fingerprint FROM examples
		WHERE backend = $1 AND (fingerprint_form IS NULL OR fingerprint_form = ANY($2))
		ORDER BY id`, backend, earlierForms(form))
	if err != nil {
		return 0, fmt.Errorf("refingerprint examples: %w", classify(err))
	}
	return d.refingerprint(ctx, rows, form, fingerprint)
}

// earlierForms lists the forms earlier than form, of its name with a lower
// number (pg-0 and pg-1 before pg-2; forms are numbered one after the
// other, warehouse.FormNumber): none for a form not named so.
func earlierForms(form string) []string {
	name, number, ok := warehouse.FormNumber(form)
	if !ok {
		return []string{}
	}
	forms := make([]string, number)
	for i := range forms {
		forms[i] = name + "-" + strconv.Itoa(i)
	}
	return forms
}

// refingerprint brings the examples rows gives (id, question, query,
// fingerprint) to form, and closes rows.
func (d *DB) refingerprint(ctx context.Context, rows pgx.Rows, form string, fingerprint func(query string) (string, error)) (int, error) {
	var ids []int64
	var fps []string
	var changed []bool
	taken := map[[2]string]bool{} // fingerprint and question of a change
	for rows.Next() {
		var id int64
		var question, query, stored string
		if err := rows.Scan(&id, &question, &query, &stored); err != nil {
			rows.Close()
			return 0, fmt.Errorf("refingerprint examples: %w", classify(err))
		}
		fp, err := fingerprint(query)
		if err != nil {
			continue
		}
		if key := [2]string{fp, strings.ToLower(question)}; fp == stored || !taken[key] {
			taken[key] = true
			ids, fps, changed = append(ids, id), append(fps, fp), append(changed, fp != stored)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("refingerprint examples: %w", classify(err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	// Fingerprint and form in one statement: no example is seen with one
	// and not the other. An example whose fingerprint another of its
	// question has (already, or as this statement found it) keeps its own.
	// One that another process brought to form after the read above is
	// left alone (read committed checks the row again once that process's
	// statement committed): it is neither written nor counted twice.
	var n int
	err := d.pool.QueryRow(ctx, `WITH updated AS (UPDATE examples e SET fingerprint = u.fp, fingerprint_form = $4
		FROM unnest($1::bigint[], $2::text[], $3::bool[]) AS u(id, fp, changed)
		WHERE e.id = u.id AND e.fingerprint_form IS DISTINCT FROM $4 AND (NOT u.changed OR NOT EXISTS (SELECT 1 FROM examples o
			WHERE o.backend = e.backend AND o.fingerprint = u.fp AND md5(lower(o.question)) = md5(lower(e.question))
			  AND o.id <> e.id))
		RETURNING u.changed)
		SELECT count(*) FILTER (WHERE changed) FROM updated`, ids, fps, changed, form).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("refingerprint examples: %w", classify(err))
	}
	return n, nil
}
