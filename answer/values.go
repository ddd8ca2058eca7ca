package answer

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// NullText stands for SQL NULL in tables; an empty string shows as "" so
// the two stay distinguishable and no cell is ever empty (Slack rejects
// empty text in most places).
const (
	NullText  = "—"
	EmptyText = `""`
)

// Table formats a result's cells for people: numbers with thousands
// separators (not in ids, years or codes), currency and percent units taken
// from the column's name (price_usd, avg_price_gbp, share_pct), floats
// without binary noise. The CSV export keeps the raw values.
type Table struct {
	r     *warehouse.Result
	cols  []columnFormat
	links Links
}

type columnFormat struct {
	numeric   bool
	thousands bool
	prefix    string
	suffix    string
}

// NewTable prepares r's columns for formatting.
func NewTable(r *warehouse.Result) *Table {
	t := &Table{r: r, cols: make([]columnFormat, len(r.Columns))}
	for i, c := range r.Columns {
		f := columnFormat{numeric: c.Kind == warehouse.KindNumber}
		if c.Kind == "" {
			// Cached before kinds existed: the values decide.
			f.numeric = valuesAreNumbers(r.Rows, i)
		}
		if f.numeric {
			name := strings.ToLower(c.Name)
			f.thousands = !identifierName.MatchString(name)
			f.prefix, f.suffix = unitOf(name)
		}
		t.cols[i] = f
	}
	return t
}

// withUnits sets the units the catalog's descriptions give, by column
// name; a unit the name announces yields to them.
func (t *Table) withUnits(units map[string]Unit) {
	for i, c := range t.r.Columns {
		if u, ok := units[strings.ToLower(c.Name)]; ok && t.cols[i].numeric {
			t.cols[i].prefix, t.cols[i].suffix = u.Prefix, u.Suffix
		}
	}
}

// Unit is the unit column col's numbers are shown with: the one the
// catalog's description gives, else the one its name announces.
func (t *Table) Unit(col int) Unit {
	if col < 0 || col >= len(t.cols) {
		return Unit{}
	}
	return Unit{Prefix: t.cols[col].prefix, Suffix: t.cols[col].suffix}
}

// NameUnit is the unit a column's name announces: a currency code or
// percent as its last word ("price_usd", "share_pct").
func NameUnit(name string) Unit {
	prefix, suffix := unitOf(strings.ToLower(name))
	return Unit{Prefix: prefix, Suffix: suffix}
}

// Numeric reports whether column col holds numbers (read best aligned right).
func (t *Table) Numeric(col int) bool { return col < len(t.cols) && t.cols[col].numeric }

// Header is column col's name, or Postgres' own placeholder for an unnamed
// expression, so a header is never empty.
func (t *Table) Header(col int) string {
	if col >= len(t.r.Columns) || strings.TrimSpace(t.r.Columns[col].Name) == "" {
		return "?column?"
	}
	return t.r.Columns[col].Name
}

// Cell is row[col] formatted, tolerating short rows.
func (t *Table) Cell(row []any, col int) string {
	if col >= len(row) || row[col] == nil {
		return NullText
	}
	v := FormatValue(row[col])
	if col >= len(t.cols) || !t.cols[col].numeric || !plainNumber.MatchString(v) {
		return v
	}
	f := t.cols[col]
	if f.thousands {
		v = Thousands(v)
	}
	if f.prefix != "" {
		if neg, ok := strings.CutPrefix(v, "-"); ok {
			return "-" + f.prefix + neg
		}
		return f.prefix + v
	}
	return v + f.suffix
}

// Number is row[col] as a float, for sorting and charts: only in number
// columns, and not for NULL, NaN or infinities, which stay text.
func (t *Table) Number(row []any, col int) (float64, bool) {
	if !t.Numeric(col) || col >= len(row) {
		return 0, false
	}
	var f float64
	switch v := row[col].(type) {
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case int32:
		f = float64(v)
	case float64:
		f = v
	case float32:
		f = float64(v)
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(v, 64); err != nil {
			if f, err = moneyNumber(t.r.Columns[col].Type, v); err != nil {
				return 0, false
			}
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// moneyNumber reads a value of PostgreSQL's money type as its server
// writes it under lc_monetary C or an English locale ("$12,345.00",
// "-$1.50", "($1.50)"): a sign or parentheses, a currency sign, digits
// with comma thousands and a point before the cents. Any other spelling
// (another locale's "1.234,50 €") is no number rather than a wrong one.
func moneyNumber(typ, v string) (float64, error) {
	m := moneyText.FindStringSubmatch(strings.TrimSpace(v))
	if typ != "money" || m == nil || (m[1] == "(") != (m[4] == ")") {
		return 0, strconv.ErrSyntax
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
	if m[1] != "" || m[2] != "" {
		f = -f
	}
	return f, err
}

// moneyText is money as an English locale writes it: an opening
// parenthesis or a minus (1, 2), the amount (3), a closing parenthesis (4).
var moneyText = regexp.MustCompile(`^(\()?(-)?[^\d\s.,()-]{0,3}\s?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(\))?$`)

// Unit is how a column's numbers are written: after a currency sign, or
// followed by a percent sign.
type Unit struct {
	Prefix string `json:"prefix,omitempty"`
	Suffix string `json:"suffix,omitempty"`
}

var commentUnits = []struct {
	pattern *regexp.Regexp
	unit    Unit
}{
	{regexp.MustCompile(`(?i)\bGBP\b|\bpounds? sterling\b|£`), Unit{Prefix: "£"}},
	{regexp.MustCompile(`(?i)\bUSD\b|\bUS dollars?\b|\bin dollars\b`), Unit{Prefix: "$"}},
	{regexp.MustCompile(`(?i)\bEUR\b|\bin euros?\b|€`), Unit{Prefix: "€"}},
	{regexp.MustCompile(`(?i)\bin percent\b|\bas a percentage\b|\bpercent from 0 to 100\b`), Unit{Suffix: "%"}},
}

// UnitOfComment reads the unit a column's description states ("price in
// GBP", "in percent from 0 to 100"); none when it states none or more
// than one.
func UnitOfComment(comment string) (Unit, bool) {
	var found []Unit
	for _, cu := range commentUnits {
		if cu.pattern.MatchString(comment) {
			found = append(found, cu.unit)
		}
	}
	if len(found) != 1 {
		return Unit{}, false
	}
	return found[0], true
}

// identifierName matches the names of number columns that are not
// quantities: ids, years, codes, phone numbers, or a name whose first
// word is the year ("year_released", "year released", "yearmonth"; not
// "yearly_total" or "years_active"). Their digits are shown as they are.
var identifierName = regexp.MustCompile(`(^|_)(id|ids|year|yr|code|zip|zipcode|postcode|phone|number|no)$|^year($|[^a-z]|month|week)`)

// unitOf returns the unit a column's name announces: a currency code or
// percent as its last word.
func unitOf(name string) (prefix, suffix string) {
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return "", ""
	}
	switch name[i+1:] {
	case "usd":
		return "$", ""
	case "gbp":
		return "£", ""
	case "eur":
		return "€", ""
	case "pct", "percent":
		return "", "%"
	}
	return "", ""
}

var plainNumber = regexp.MustCompile(`^-?\d+(\.\d+)?$`)

// Thousands puts commas between groups of three digits of a plain number's
// whole part: "1234567.5" becomes "1,234,567.5". Anything else is returned
// as it is.
func Thousands(s string) string {
	if !plainNumber.MatchString(s) {
		return s
	}
	sign, whole, frac := "", s, ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	if i := strings.IndexByte(whole, '.'); i >= 0 {
		whole, frac = whole[:i], whole[i:]
	}
	if len(whole) <= 3 {
		return s
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(whole) % 3
	if head > 0 {
		b.WriteString(whole[:head])
	}
	for i := head; i < len(whole); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(whole[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}

// FormatValue renders one result value as text, without separators or
// units (see Table for those).
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return NullText
	case string:
		if x == "" {
			return EmptyText
		}
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return FormatFloat(x)
	case float32:
		return FormatFloat(float64(x))
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case []any, map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	default:
		return fmt.Sprint(x)
	}
}

// FormatFloat shows a float8 the way a person expects to read it.
//
// Binary floats carry noise (0.1+0.2 is 0.30000000000000004, and even
// strconv's shortest form keeps it), so we round: values of magnitude 1 or
// more keep at most 4 decimals; smaller values keep 4 significant digits, so
// 0.000012345 stays visible as 0.00001235. Below 1e-6 we switch to exponent
// form. Trailing zeros are dropped. Postgres numeric arrives as a string and
// is never rounded.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a < 1e-6 {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	decimals := 4
	if a < 1 {
		decimals = 3 - int(math.Floor(math.Log10(a)))
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

func valuesAreNumbers(rows [][]any, col int) bool {
	seen := false
	for _, row := range rows {
		if col >= len(row) || row[col] == nil {
			continue
		}
		switch row[col].(type) {
		case int64, int, int32, float64, float32, json.Number:
			seen = true
		default:
			return false
		}
	}
	return seen
}
