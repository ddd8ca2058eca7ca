package warehousetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// EarlierFingerprint is a SQL query's fingerprint as versions before the
// parse tree's hash stored it (in examples, results and turns):
// pg_query's fingerprint, a dash, then a hash of the query as PostgreSQL's
// parser deparses it. Tests of the upgrade from that form use it.
func EarlierFingerprint(sql string) (string, error) {
	fp, err := pg_query.Fingerprint(sql)
	if err != nil {
		return "", fmt.Errorf("fingerprint %q: %w", sql, err)
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", sql, err)
	}
	canonical, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("deparse %q: %w", sql, err)
	}
	sum := sha256.Sum256([]byte(canonical))
	return fp + "-" + hex.EncodeToString(sum[:8]), nil
}
