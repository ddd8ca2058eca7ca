package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"

	"github.com/klauspost/compress/zstd"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Result rows are stored (query_results.rows, bytea since migration 00017)
// as the JSON encodeJSON writes, compressed with zstd. A wide answer
// (2,000 rows × 61 text columns) is 8.3 MB of JSON: as jsonb all of it went
// over the wire and through PostgreSQL's own compression on every put, and
// jsonb rewrote numbers (a float 1234567.0, written "1.234567e+06", came
// back an integer). Compressed, it is ~1.1 MB, and the JSON is read back
// exactly as it was written.
var (
	// The fastest level compressed a wide answer's JSON better than the
	// default level (1.1 MB against 1.5 MB) in less time. A 1 MiB window
	// compresses it as well as the default 8 MiB one and keeps ~2.7 MB per
	// encoder instead of ~9 MB; up to four puts compress at once, the
	// others wait their turn.
	rowsEncoder = must(zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(1<<20), zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4))))
	rowsDecoder = must(zstd.NewReader(nil))
	// zstdMagic starts every zstd frame; rows stored as jsonb before
	// migration 00017 became their JSON text, which starts with '['.
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// must returns v, and panics on err: for options that are constant.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// encodeRows writes result rows in their stored form, which decodeRows
// reads back to the same values.
func encodeRows(rows [][]any) ([]byte, error) {
	js, err := encodeJSON(rows)
	if err != nil {
		return nil, err
	}
	return rowsEncoder.EncodeAll(js, make([]byte, 0, len(js)/4)), nil
}

// decodeRows reverses encodeRows, and reads rows stored as JSON text too.
func decodeRows(data []byte, width int) ([][]any, error) {
	if bytes.HasPrefix(data, zstdMagic) {
		js, err := rowsDecoder.DecodeAll(data, nil)
		if err != nil {
			return nil, fmt.Errorf("decode rows: %w", err)
		}
		data = js
	}
	return decodeJSON(data, width)
}

// encodeJSON writes result rows as JSON that decodeJSON reads back to the
// same values (warehouse.JSONValue).
func encodeJSON(rows [][]any) ([]byte, error) {
	out := make([][]any, len(rows))
	for i, row := range rows {
		enc := make([]any, len(row))
		for j, v := range row {
			enc[j] = warehouse.JSONValue(v)
		}
		out[i] = enc
	}
	return json.Marshal(out)
}

// decodeJSON reverses encodeJSON.
func decodeJSON(data []byte, width int) ([][]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var rows [][]any
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("decode rows: %w", err)
	}
	for _, row := range rows {
		if len(row) != width {
			return nil, errors.New("decode rows: row width differs from the columns")
		}
		for i, v := range row {
			row[i] = warehouse.ReadJSONValue(v)
		}
	}
	if rows == nil {
		rows = [][]any{}
	}
	return rows, nil
}
