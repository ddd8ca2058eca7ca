package blockkit

import (
	"fmt"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Fixtures shared by the golden, limit and plain-text tests. They are built
// deterministically so golden files stay stable.

func singleNumberAnswer() answer.Answer {
	return answer.Answer{
		Question: "How many orders did we get last week?",
		Text:     answer.ParseText("We received *1,234* orders last week."),
		Result: &warehouse.Result{
			Columns:  []warehouse.Column{{Name: "order_count", Kind: warehouse.KindNumber, Type: "int8"}},
			Rows:     [][]any{{int64(1234)}},
			RowCount: 1,
		},
		Assumptions: []string{"“Last week” means Monday to Sunday before today."},
		Actions:     testButtons, QueryID: "q_7f3a9c",
		Elapsed: 1234 * time.Millisecond,
		Backend: "sql",
	}
}

func regionsAnswer() answer.Answer {
	rows := [][]any{
		{"North", int64(120), "10500.50", 0.1 + 0.2, true},
		{"South", int64(98), "8700.00", 87.5, false},
		{"East", nil, "0.00", nil, nil},
		{"West", int64(1500000), "1234567.89", 823.0456789, true},
		{"Central <HQ> & Co", int64(7), nil, 0.000012345, false},
		{"", int64(0), "12.30", -3.5, true},
		{nil, int64(3), "45.00", 15.0, false},
		{"Online", int64(4521), "99999.99", 22.123456, true},
		{"Wholesale", int64(-12), "-450.00", 37.5, false},
		{"Export", int64(64), "7800.10", 121.875, true},
	}
	return answer.Answer{
		Question: "Orders and revenue by region?",
		Text:     answer.ParseText("**West** leads with 1.5M orders; East has no orders recorded (shown as —). Revenue < 0 means refunds exceeded sales."),
		Result: &warehouse.Result{
			Columns: []warehouse.Column{
				{Name: "region", Kind: warehouse.KindText, Type: "text"},
				{Name: "orders", Kind: warehouse.KindNumber, Type: "int8"},
				{Name: "revenue", Kind: warehouse.KindNumber, Type: "numeric"},
				{Name: "avg_basket", Kind: warehouse.KindNumber, Type: "float8"},
				{Name: "active", Kind: warehouse.KindBool, Type: "bool"},
			},
			Rows:     rows,
			RowCount: len(rows),
		},
		Assumptions: []string{"Revenue is net of refunds.", "Regions come from the shipping address."},
		Actions:     testButtons, QueryID: "q_regions",
		Elapsed: 340 * time.Millisecond,
	}
}

func dailyResult(n int) *warehouse.Result {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{start.AddDate(0, 0, i).Format("2006-01-02"), int64(100 + i*7%53), float64(i) * 12.25}
	}
	return &warehouse.Result{
		Columns: []warehouse.Column{
			{Name: "day", Kind: warehouse.KindTime, Type: "date"},
			{Name: "orders", Kind: warehouse.KindNumber, Type: "int8"},
			{Name: "revenue", Kind: warehouse.KindNumber, Type: "float8"},
		},
		Rows:     rows,
		RowCount: n,
	}
}

func manyRowsAnswer() answer.Answer {
	return answer.Answer{
		Question: "Daily orders since January?",
		Text:     answer.ParseText("Orders per day since 1 January 2025."),
		Result:   dailyResult(150),
		Actions:  testButtons, QueryID: "q_daily",
		Elapsed: 2500 * time.Millisecond,
		Backend: "sql",
	}
}

func wideAnswer() answer.Answer {
	cols := make([]warehouse.Column, 25)
	for i := range cols {
		cols[i] = warehouse.Column{Name: fmt.Sprintf("metric_%02d", i+1), Kind: warehouse.KindNumber, Type: "int4"}
	}
	rows := make([][]any, 5)
	for r := range rows {
		rows[r] = make([]any, len(cols))
		for c := range cols {
			rows[r][c] = int64((r + 1) * (c + 1) * 11)
		}
	}
	return answer.Answer{
		Question: "Show all metrics for the top 5 stores.",
		Text:     answer.ParseText("Here are the 25 metrics for the top 5 stores."),
		Result:   &warehouse.Result{Columns: cols, Rows: rows, RowCount: len(rows)},
		Actions:  testButtons, QueryID: "q_wide",
		Elapsed: 800 * time.Millisecond,
	}
}

// longText is a deterministic answer of about n characters in paragraphs.
func longText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Paragraph %d: revenue in *region %d* grew while costs & returns stayed below 5%%. ", i, i)
		if i%4 == 3 {
			b.WriteString("\n\n")
		}
	}
	return b.String()[:n]
}

func longAnswer() answer.Answer {
	return answer.Answer{
		Question: "Explain the quarter.",
		Text:     answer.ParseText(longText(5000)),
		Actions:  testButtons, QueryID: "q_long",
		Elapsed: 4 * time.Second,
	}
}

func errorMessage() Message {
	return Error("I couldn't run that query: it took longer than 30 s.",
		[]string{"Ask about a shorter period, e.g. last month", "Filter to one region"})
}

func noticeMessage() Message {
	return Notice("I can only answer questions about our sales data, so I can't help with the weather.",
		[]string{"How many orders did we get last week?", "Top 5 products by revenue this month"})
}

const sampleSQL = `SELECT region, count(*) AS orders
FROM analytics.orders
WHERE created_at >= now() - interval '7 days' AND total > 0 AND total < 1000
GROUP BY region
ORDER BY orders DESC
LIMIT 1000`

func sqlMessage() Message {
	return SQL("q_regions", sampleSQL, "Orders by region last week?")
}

// testButtons are the buttons package nodes puts under answers.
var testButtons = []answer.Action{{ID: "export_csv", Label: "Export CSV"}, {ID: "show_sql", Label: "Show SQL"}}

// clarifyAnswer asks back which Bethesda a question means.
func clarifyAnswer() *answer.Answer {
	const q = "How many games did Bethesda publish?"
	return &answer.Answer{Kind: answer.KindClarify, Question: q, Text: answer.Plain("Which Bethesda do you mean?"),
		Choices: []answer.Choice{
			{Label: "Bethesda Softworks", Ask: q + " (Bethesda Softworks)"},
			{Label: "Bethesda-Soft", Ask: q + " (Bethesda-Soft)"},
			{Label: "all three", Ask: q + " (all three)"},
		}}
}
