package nodes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
)

// errNoTables means the analytics schema is missing or holds no tables the
// bot can see: a setup problem no rephrasing can fix.
var errNoTables = errors.New("no tables: check ANALYTICS_SCHEMA, load data into it (make run loads the demo) and grant the reader role access")

// schemaCache keeps the described analytics schema for a while: the
// catalog rarely changes, and reading it costs a round trip per question.
type schemaCache struct {
	mu     sync.Mutex
	tables []store.Table
	names  []string
	at     time.Time
}

// tables returns the analytics schema's tables and their names.
func (n *Nodes) tables(ctx context.Context) ([]store.Table, []string, error) {
	c := &n.schema
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables != nil && n.Now().Sub(c.at) < n.SchemaTTL {
		return c.tables, c.names, nil
	}
	tables, err := n.DB.DescribeSchema(ctx, n.Schema)
	if err != nil {
		return nil, nil, fmt.Errorf("describe schema %s: %w", n.Schema, err)
	}
	if len(tables) == 0 {
		return nil, nil, fmt.Errorf("schema %q: %w", n.Schema, errNoTables)
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	c.tables, c.names, c.at = tables, names, n.Now()
	return tables, names, nil
}
