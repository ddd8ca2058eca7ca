package bot_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// schemasRules answer questions about two schemas: one by a join across
// both, one by reading a schema that is not in ANALYTICS_SCHEMA.
const schemasRules = "rules:\n" + everyQuestion + `
  - step: generate_sql
    match: '(?m)^Question: Which customer spent the most\?'
    reply: '{"sql": "SELECT c.name, sum(o.total) AS spent FROM crm.customers c JOIN sales.orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY spent DESC LIMIT 1", "assumptions": [], "explanation": "Sums orders per customer."}'
  - step: generate_sql
    reply: '{"sql": "SELECT who, pay FROM hr.payroll", "assumptions": [], "explanation": "Reads the payroll."}'
  - step: interpret
    reply: '{"answer": "*Acme* spent the most."}'
`

// TestSeveralSchemas asks a question answered by joining tables of two
// analytics schemas (ANALYTICS_SCHEMA=sales,crm), then one whose query
// reads a third schema, which the bot refuses to run even though the
// reader could read it: the guard allowlists only ANALYTICS_SCHEMA.
func TestSeveralSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA sales;
		CREATE TABLE sales.orders (customer_id int, total numeric(10,2));
		INSERT INTO sales.orders VALUES (1, 30.00), (1, 12.50), (2, 40.00);
		CREATE SCHEMA crm;
		CREATE TABLE crm.customers (id int PRIMARY KEY, name text);
		INSERT INTO crm.customers VALUES (1, 'Acme'), (2, 'Globex');
		CREATE SCHEMA hr;
		CREATE TABLE hr.payroll (who text, pay int);`)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), "", []string{"sales", "crm", "hr"}))
	b := bottest.New(t, url, schemasRules, func(c *bot.Config) { c.Postgres.Schemas = []string{"sales", "crm"} })

	s, res, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "U1", Text: "Which customer spent the most?"})
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, "answered: %s", s.ErrorDetail)
	assert.Equal(t, [][]any{{"Acme", "42.50"}}, s.Result.Rows, "rows joined across the schemas")
	assert.Equal(t, "*Acme* spent the most.", s.Answer)
	assert.Equal(t, answerPath, res.Path())
	prompt := generatePrompts(b)[0]
	for _, want := range []string{`qualified with their schema.`, `Schemas "sales", "crm":`, "TABLE sales.orders", "TABLE crm.customers"} {
		assert.Contains(t, prompt, want, "the generator's prompt")
	}
	assert.NotContains(t, prompt, "payroll", "a schema outside ANALYTICS_SCHEMA is never shown")

	b.Scripted.Reset()
	s, _, err = b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "U1", Text: "What do people earn?"})
	require.NoError(t, err)
	assert.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind, "a query reading another schema is rejected")
	assert.Equal(t, "relation_not_allowed", s.ErrorClass, "the guard's class")
	assert.Contains(t, s.ResponseText, "I couldn't write a query that works")
	assert.Empty(t, s.Result.Rows)
	retries := generatePrompts(b)
	require.Len(t, retries, 3, "the first attempt and two retries")
	assert.Contains(t, retries[1], "hr.payroll is outside the allowed schemas", "the retry prompt says why")
}

// generatePrompts are the prompts of the generator calls the scripted
// model received, in order.
func generatePrompts(b *bot.Bot) []string {
	var out []string
	for _, c := range b.Scripted.Calls() {
		if c.Step == llm.StepGenerateSQL {
			out = append(out, c.Prompt)
		}
	}
	return out
}
