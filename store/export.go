package store

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// ExportStats describes a CSV export.
type ExportStats struct {
	// Rows is the number of data rows written.
	Rows int
	// Truncated reports that the query had more than maxRows rows.
	Truncated bool
}

// ExportCSV runs sql like Query, under the same read-only protections, and
// streams its rows to w as CSV (a header, then at most maxRows rows) as
// they arrive, so an export of millions of rows needs no more memory than
// one row. Values are written as CSVCell formats them, the same as an
// export from the cache.
func (e *Executor) ExportCSV(ctx context.Context, sql string, w io.Writer, maxRows int) (ExportStats, error) {
	var st ExportStats
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx) error {
		var err error
		st, err = e.stream(ctx, tx, sql, csv.NewWriter(w), maxRows)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("export query: %w", err)
	}
	return st, nil
}

func (e *Executor) stream(ctx context.Context, tx pgx.Tx, sql string, w *csv.Writer, maxRows int) (ExportStats, error) {
	var st ExportStats
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := tx.Query(qctx, sql, pgx.QueryExecModeExec)
	if err != nil {
		return st, err
	}
	defer rows.Close()

	fields := rows.FieldDescriptions()
	typeMap := tx.Conn().TypeMap()
	record := make([]string, len(fields))
	decoders := make([]decoder, len(fields))
	for i, f := range fields {
		record[i] = f.Name
		decoders[i] = decoderFor(typeMap, f.DataTypeOID)
	}
	if err := w.Write(record); err != nil {
		return st, fmt.Errorf("write CSV: %w", err)
	}
	for rows.Next() {
		if st.Rows == maxRows {
			st.Truncated = true
			cancel()
			break
		}
		for i, b := range rows.RawValues() {
			if b == nil {
				record[i] = ""
				continue
			}
			record[i] = CSVCell(decoders[i](string(b)))
		}
		if err := w.Write(record); err != nil {
			return st, fmt.Errorf("write CSV: %w", err)
		}
		st.Rows++
	}
	rows.Close()
	if err := rows.Err(); err != nil && !st.Truncated {
		return st, err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return st, fmt.Errorf("write CSV: %w", err)
	}
	return st, nil
}

// CSVCell formats a result value for a CSV file: NULL as an empty cell,
// numbers in full precision, everything else as its text.
func CSVCell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		return fmt.Sprint(v)
	}
}
