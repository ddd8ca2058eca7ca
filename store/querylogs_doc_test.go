package store_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/observability.md's column table of chat_query_logs names the
// table's columns, all of them but its key, as an operator querying it
// finds them.
func TestQueryLogColumnsDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/observability.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "| column | meaning |\n")
	require.True(t, ok, "docs/observability.md has the query logs' column table")
	table, _, _ = strings.Cut(table, "\n\n")
	var documented []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(line, "|---") {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			documented = append(documented, m[1])
		}
	}

	db := storetest.New(t)
	rows, err := db.Pool().Query(context.Background(), `SELECT column_name FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = 'chat_query_logs' AND column_name <> 'id' ORDER BY ordinal_position`, db.Schema())
	require.NoError(t, err)
	var columns []string
	for rows.Next() {
		var c string
		require.NoError(t, rows.Scan(&c))
		columns = append(columns, c)
	}
	require.NoError(t, rows.Err())
	assert.ElementsMatch(t, columns, documented, "chat_query_logs' columns, and those docs/observability.md lists")
}
