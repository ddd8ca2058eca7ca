package pgwarehouse

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ExportCSV runs sql like Query, under the same read-only protections, and
// streams its rows to w as CSV (a header, then at most limit.Rows rows,
// within limit.Bytes) as they arrive, so an export of millions of rows
// needs no more memory than one row. Values are written as warehouse.Text
// formats them, the same as an export of a cached result.
func (e *Executor) ExportCSV(ctx context.Context, sql string, w io.Writer, limit warehouse.ExportLimit) (warehouse.ExportStats, error) {
	var st warehouse.ExportStats
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx, sg signed) error {
		c := warehouse.NewCSVWriter(w)
		c.Limit(limit.Bytes)
		var err error
		st, err = e.stream(ctx, tx, sg, sql, c, limit.Rows)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("export query: %w", err)
	}
	return st, nil
}

func (e *Executor) stream(ctx context.Context, tx pgx.Tx, sg signed, sql string, w *warehouse.CSVWriter, maxRows int) (warehouse.ExportStats, error) {
	var st warehouse.ExportStats
	qctx, cancel := context.WithCancel(e.statementCtx(ctx))
	defer cancel()
	br, err := sg.send(qctx, tx, sql)
	if err != nil {
		return st, err
	}
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return st, err
	}
	defer rows.Close()

	fields := rows.FieldDescriptions()
	typeMap := tx.Conn().TypeMap()
	cols := make([]warehouse.Column, len(fields))
	decoders := make([]decoder, len(fields))
	for i, f := range fields {
		cols[i] = warehouse.Column{Name: f.Name, Kind: kindOfOID(typeMap, f.DataTypeOID)}
		decoders[i] = decoderFor(typeMap, f.DataTypeOID)
	}
	if err := w.WriteHeader(cols); err != nil {
		return st, err
	}
	row := make([]any, len(fields))
	for rows.Next() {
		if st.Rows == maxRows {
			// The query has no LIMIT of its own: rows still on their way
			// when it is canceled are read, unmeasured, into the
			// connection's buffer, so the connection is not pooled.
			st.Truncated, *sg.large = true, true
			cancel()
			break
		}
		err := fits(rows.RawValues(), w.Room(), sg.large)
		if err == nil {
			for i, b := range rows.RawValues() {
				row[i] = nil
				if b != nil {
					row[i] = decoders[i](string(b))
				}
			}
			err = w.WriteRow(row)
		}
		if errors.Is(err, warehouse.ErrFull) {
			st.Truncated, st.Full = true, true
			cancel()
			break
		}
		if err != nil {
			// Canceled before the deferred rows.Close, which would
			// otherwise read every remaining row only to drop it.
			cancel()
			return st, err
		}
		st.Rows++
	}
	rows.Close()
	if err := rows.Err(); err != nil && !st.Truncated {
		return st, err
	}
	return st, w.Flush()
}

// fits refuses, with warehouse.ErrFull, a row whose values as Postgres
// sent them are already longer than room: they are not copied to be
// written only to be dropped. It sets large for a row past largeRow.
func fits(raw [][]byte, room int64, large *bool) error {
	var n int64
	for _, b := range raw {
		n += int64(len(b))
	}
	*large = *large || n > largeRow
	if n > room {
		return warehouse.ErrFull
	}
	return nil
}
