// Package chart chooses a chart for a query result from its shape alone,
// with no model call, and describes it neutrally (Spec) for each surface to
// draw: Slack's data_visualization block, the web chat's SVG, a text bar
// chart in the terminal. The rules:
//
//   - one time-like or ordered column (a date, a year) and 1 to 6 measures:
//     a line over it, in order, every point of it;
//   - one category column with up to 20 values and 1 to 6 measures: bars;
//     a pie instead when the question asks for parts of a whole ("share",
//     "breakdown", …), with one measure, up to 6 values, all above zero;
//   - two category columns and one measure: one series per value of the
//     second (up to 6) over the first (up to 20), when every pair has
//     exactly one value;
//   - anything else, or a single row: no chart.
//
// A Spec keeps Slack's limits on titles, labels, series and segments; a line
// keeps its whole series, which ForSlack cuts to the 20 points Slack's block
// holds.
package chart

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Type is a kind of chart.
type Type string

// The chart types, as Slack names them.
const (
	Bar  Type = "bar"
	Line Type = "line"
	Area Type = "area"
	Pie  Type = "pie"
)

// Slack's limits for a data_visualization block: a Spec keeps all but
// MaxCategories for a line, which ForSlack applies.
const (
	MaxTitle      = 50
	MaxLabel      = 20
	MaxAxisLabel  = 50
	MaxCategories = 20
	MaxSeries     = 6
	MaxSegments   = 6
)

// Series is one measure's values, one per category.
type Series struct {
	Name   string
	Values []float64
}

// Spec is a chart, whatever draws it.
type Spec struct {
	Type  Type
	Title string
	// Categories label the x axis (a pie's segments), in order.
	Categories []string
	// Series hold one value per category; a pie has exactly one.
	Series         []Series
	XLabel, YLabel string
	// Note says what of the result the chart leaves out, e.g. "last 20
	// of 23" (ForSlack); the title and XLabel say it too.
	Note string
	// Partial is the category of an ordered axis the data covers only in
	// part (the year the data ends in), first or last; "" when none.
	Partial string `json:",omitempty"`
}

// Hint is what the model proposed in its answer (no extra call): a chart
// type ("none" for none) and a title. The rules decide whether it fits.
type Hint struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	// Partial names the first or last period of a line that the data
	// covers only in part ("2019" for data that ends in May 2019).
	Partial string `json:"partial,omitempty"`
}

// Choose returns the chart that fits r, if one does; question decides
// between bars and a pie. A hint's type is taken when it fits the data
// (a line or area needs an ordered axis, a pie up to 6 values above zero
// in one series); its title names the chart.
func Choose(r warehouse.Result, question string, hint Hint) (Spec, bool) {
	if strings.EqualFold(strings.TrimSpace(hint.Type), "none") {
		return Spec{}, false
	}
	s, ok := choose(r, question, hint.Title)
	if !ok {
		return s, false
	}
	ordered := s.Type == Line || s.Type == Area
	switch Type(strings.ToLower(strings.TrimSpace(hint.Type))) {
	case Pie:
		if s.Note == "" && len(s.Series) == 1 && pieFits(r, s, s.Series[0].Name) {
			s.Type, s.XLabel, s.YLabel = Pie, "", ""
		}
	case Bar:
		if s.Type == Pie {
			s.XLabel, s.YLabel = axisLabel(r.Columns[0].Name), ""
		}
		s.Type = Bar
	case Line:
		if ordered {
			s.Type = Line
		}
	case Area:
		if ordered {
			s.Type = Area
		}
	}
	if p := strings.TrimSpace(hint.Partial); p != "" && (s.Type == Line || s.Type == Area) &&
		(p == s.Categories[0] || p == s.Categories[len(s.Categories)-1]) {
		s.Partial = p
	}
	return s, true
}

// ForSlack is c within Slack's data_visualization limits: labels of at
// most MaxLabel characters, and for a line or area of more than
// MaxCategories points its last MaxCategories, as its title and x label
// say ("last 20 of 23"). Other surfaces draw c whole.
func ForSlack(c Spec) Spec {
	c.Categories = fitLabels(c.Categories)
	n := len(c.Categories)
	if n <= MaxCategories || (c.Type != Line && c.Type != Area) {
		return c
	}
	c.Note = fmt.Sprintf("last %d of %d", MaxCategories, n)
	c.Categories = c.Categories[n-MaxCategories:]
	series := make([]Series, len(c.Series))
	for i, s := range c.Series {
		series[i] = Series{Name: s.Name, Values: s.Values[max(0, len(s.Values)-MaxCategories):]}
	}
	c.Series = series
	if c.XLabel != "" {
		c.XLabel = fit(c.XLabel+" ("+c.Note+")", MaxAxisLabel)
	}
	c.Title = fit(fit(c.Title, MaxTitle-len(c.Note)-3)+" ("+c.Note+")", MaxTitle)
	return c
}

func choose(r warehouse.Result, question, title string) (Spec, bool) {
	if len(r.Rows) < 2 || len(r.Columns) < 2 {
		return Spec{}, false
	}
	var dims, measures []int
	for i, c := range r.Columns {
		switch {
		case timeLike(c, r, i):
			dims = append(dims, i)
		case numeric(r, i):
			measures = append(measures, i)
		case c.Kind == warehouse.KindText || c.Kind == "" || c.Kind == warehouse.KindBool:
			dims = append(dims, i)
		default:
			return Spec{}, false
		}
	}
	var (
		s  Spec
		ok bool
	)
	switch {
	case len(dims) == 1 && len(measures) >= 1 && len(measures) <= MaxSeries:
		s, ok = oneDimension(r, dims[0], measures, question)
	case len(dims) == 2 && len(measures) == 1:
		s, ok = pivot(r, dims, measures[0])
	}
	if !ok {
		return Spec{}, false
	}
	if t := strings.Join(strings.Fields(title), " "); t != "" {
		s.Title = fit(t, MaxTitle)
	}
	return s, true
}

func oneDimension(r warehouse.Result, dim int, measures []int, question string) (Spec, bool) {
	s := Spec{XLabel: axisLabel(r.Columns[dim].Name)}
	rows := r.Rows
	ordered := timeLike(r.Columns[dim], r, dim)
	if ordered {
		rows = sortedBy(rows, dim)
		s.Type = Line
	} else {
		if len(rows) > MaxCategories {
			return Spec{}, false
		}
		s.Type = Bar
	}
	for _, row := range rows {
		s.Categories = append(s.Categories, label(row[dim]))
	}
	s.Categories = dropMidnight(s.Categories)
	measures = comparable(r, measures)
	for _, m := range measures {
		ser := Series{Name: fitLabel(humanize(r.Columns[m].Name))}
		for _, row := range rows {
			v, ok := number(row[m])
			if !ok {
				return Spec{}, false
			}
			ser.Values = append(ser.Values, v)
		}
		s.Series = append(s.Series, ser)
	}
	s.Title = titleOf("Values", r, dim)
	if len(measures) == 1 {
		s.YLabel = axisLabel(r.Columns[measures[0]].Name)
		s.Title = titleOf(humanize(r.Columns[measures[0]].Name), r, dim)
	}
	if !ordered && partsOfWhole(question) && pieFits(r, s, r.Columns[measures[0]].Name) {
		s.Type, s.XLabel, s.YLabel = Pie, "", ""
	}
	return s, uniqueLabels(s.Categories) && uniqueSeries(s.Series)
}

// comparable keeps the measures that share a scale with the first (their
// largest values within a factor of 10): counts in millions next to
// percentages would flatten the percentages to nothing.
func comparable(r warehouse.Result, measures []int) []int {
	peak := func(m int) float64 {
		var p float64
		for _, row := range r.Rows {
			v, _ := number(row[m])
			p = max(p, math.Abs(v))
		}
		return p
	}
	first := peak(measures[0])
	out := measures[:1:1]
	for _, m := range measures[1:] {
		if p := peak(m); p > 0 && first > 0 && max(p, first)/min(p, first) <= 10 {
			out = append(out, m)
		}
	}
	return out
}

func pivot(r warehouse.Result, dims []int, measure int) (Spec, bool) {
	x, by := dims[0], dims[1]
	if timeLike(r.Columns[by], r, by) && !timeLike(r.Columns[x], r, x) {
		x, by = by, x
	}
	rows := r.Rows
	if timeLike(r.Columns[x], r, x) {
		rows = sortedBy(rows, x)
	}
	var cats, names []string
	cell := map[[2]string]float64{}
	for _, row := range rows {
		c, n := label(row[x]), fitLabel(label(row[by]))
		if !slices.Contains(cats, c) {
			cats = append(cats, c)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
		v, ok := number(row[measure])
		if !ok {
			return Spec{}, false
		}
		if _, dup := cell[[2]string{c, n}]; dup {
			return Spec{}, false
		}
		cell[[2]string{c, n}] = v
	}
	if len(cats) > MaxCategories || len(names) > MaxSeries || len(cell) != len(cats)*len(names) {
		return Spec{}, false
	}
	s := Spec{Type: Bar, Categories: cats, XLabel: axisLabel(r.Columns[x].Name), YLabel: axisLabel(r.Columns[measure].Name),
		Title: titleOf(humanize(r.Columns[measure].Name), r, x, by)}
	if timeLike(r.Columns[x], r, x) {
		s.Type = Line
	}
	for _, n := range names {
		ser := Series{Name: n}
		for _, c := range cats {
			ser.Values = append(ser.Values, cell[[2]string{c, n}])
		}
		s.Series = append(s.Series, ser)
	}
	s.Categories = dropMidnight(s.Categories)
	return s, uniqueLabels(s.Categories)
}

// dropMidnight writes timestamps that are all at midnight (a timestamp
// column truncated to days, months or years) as their dates:
// "2024-01-01T00:00:00" → "2024-01-01". When any has a time of day, all
// keep theirs.
func dropMidnight(labels []string) []string {
	const midnight = "T00:00:00"
	for _, l := range labels {
		if !strings.HasSuffix(l, midnight) || !dateLike.MatchString(strings.TrimSuffix(l, midnight)) {
			return labels
		}
	}
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = strings.TrimSuffix(l, midnight)
	}
	return out
}

// dateLike is a date as the bot writes one, 2024-01-31.
var dateLike = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// yearLike names columns of years, months and the like: numbers read as
// an ordered axis, not measured.
var yearLike = regexp.MustCompile(`(?i)(^|_)(year|yr|month|quarter|week|day|date|hour|period)s?$`)

// timeLike reports a column to chart over: times, and whole numbers in a
// column named like a period (release_year).
func timeLike(c warehouse.Column, r warehouse.Result, i int) bool {
	if c.Kind == warehouse.KindTime {
		return true
	}
	if !yearLike.MatchString(c.Name) || !numeric(r, i) {
		return false
	}
	for _, row := range r.Rows {
		v, ok := number(row[i])
		if !ok || v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// numeric reports whether every value of column i is a number (no nulls).
func numeric(r warehouse.Result, i int) bool {
	if k := r.Columns[i].Kind; k != "" && k != warehouse.KindNumber {
		return false
	}
	for _, row := range r.Rows {
		if _, ok := number(row[i]); !ok {
			return false
		}
	}
	return true
}

// number reads a result value as a number: ints, floats and the decimal
// strings exact numbers are kept as.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// sortedBy returns rows ordered by column i (numbers, times or text).
func sortedBy(rows [][]any, i int) [][]any {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b []any) int {
		fa, oka := number(a[i])
		fb, okb := number(b[i])
		if oka && okb {
			switch {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		}
		return strings.Compare(label(a[i]), label(b[i]))
	})
	return out
}

// partsWords mark a question about parts of a whole.
var partsWords = regexp.MustCompile(`(?i)\b(share|shares|proportion|proportions|percentage|percentages|breakdown|split|distribution|fraction|mix)\b`)

func partsOfWhole(question string) bool { return partsWords.MatchString(question) }

// shareNames mark a measure that is already each row's share of a whole
// (share_pct, percent_of_games, ratio; not shares or percentile), by a
// word of its name (or of its humanized name, "Share pct").
var shareNames = regexp.MustCompile(`(?i)(^|[_\s])(pct|percent|percentage|share|ratio|proportion|fraction)([_\s]|$)`)

// pieFits reports whether s, drawn from r, can be a pie of measure: one series of up
// to MaxSegments values above zero that can be the parts of a whole, as a
// pie draws them (each slice its share of their sum). They cannot when r
// was cut (rows are missing), nor when the measure is a share already and
// its values do not add up to 100 % (or 1): the top three genres' shares,
// 30, 20 and 10 %, drawn as 50, 33 and 17 % would be wrong.
func pieFits(r warehouse.Result, s Spec, measure string) bool {
	if len(s.Series) != 1 || len(s.Categories) > MaxSegments || !allPositive(s.Series[0].Values) || r.Truncated {
		return false
	}
	if !shareNames.MatchString(measure) {
		return true
	}
	vs := s.Series[0].Values
	var sum float64
	for _, v := range vs {
		sum += v
	}
	// Each share may be rounded (to a whole percent, or to two decimals
	// of 1): the sum may be off by half of that per row.
	slack := float64(len(vs)) / 2
	return math.Abs(sum-100) <= max(1, slack) || math.Abs(sum-1) <= max(0.01, slack/100)
}

func allPositive(vs []float64) bool {
	for _, v := range vs {
		if v <= 0 {
			return false
		}
	}
	return true
}

// label writes a category value on one line, whole: ForSlack cuts it to
// MaxLabel characters for Slack.
func label(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "(none)"
	case time.Time:
		s = x.Format(time.DateOnly)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		s = strings.TrimSuffix(x, "T00:00:00Z")
	default:
		s = fmt.Sprint(x)
	}
	if s = strings.Join(strings.Fields(s), " "); s == "" {
		// Empty or blank text: a category or series needs a label.
		return "(blank)"
	}
	return s
}

// fitLabels cuts labels to MaxLabel characters, keeping them apart: a cut
// that would repeat an earlier label ends in its position instead.
func fitLabels(labels []string) []string {
	out := make([]string, len(labels))
	seen := make(map[string]bool, len(labels))
	for i, l := range labels {
		f := fitLabel(l)
		if seen[f] {
			n := strconv.Itoa(i + 1)
			f = fit(l, MaxLabel-len(n)-1) + " " + n
		}
		seen[f] = true
		out[i] = f
	}
	return out
}

func fitLabel(s string) string { return fit(s, MaxLabel) }

func axisLabel(name string) string { return fit(humanize(name), MaxAxisLabel) }

// fit cuts s to n characters, marking the cut with "…".
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// humanize turns a column name into words: avg_price_gbp → "Avg price gbp";
// a name of no words ("_", " ") is "Value": a chart's series, axes and
// title each need one.
func humanize(name string) string {
	s := strings.Join(strings.Fields(strings.ReplaceAll(name, "_", " ")), " ")
	if s == "" {
		return "Value"
	}
	r, size := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[size:]
}

// titleOf names a chart by what it measures and what over ("Games by
// publisher"), within MaxTitle.
func titleOf(what string, r warehouse.Result, dims ...int) string {
	by := make([]string, len(dims))
	for i, d := range dims {
		by[i] = strings.ToLower(humanize(r.Columns[d].Name))
	}
	return fit(what+" by "+strings.Join(by, " and "), MaxTitle)
}

func uniqueLabels(ls []string) bool {
	seen := make(map[string]bool, len(ls))
	for _, l := range ls {
		if seen[l] {
			return false
		}
		seen[l] = true
	}
	return true
}

func uniqueSeries(ss []Series) bool {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return uniqueLabels(names)
}

// barWidth is the longest bar of a text chart, in characters.
const barWidth = 30

// Text draws s as a compact text chart for terminals: a title, then a bar
// per category (per category and series), scaled to the largest value; a
// pie shows each segment's share.
func (s Spec) Text() string {
	var b strings.Builder
	b.WriteString(s.Title)
	if s.Type == Pie {
		b.WriteString(" (shares)")
	}

	b.WriteByte('\n')
	width := 0
	for _, c := range s.Categories {
		width = max(width, utf8.RuneCountInString(c))
	}
	multi := len(s.Series) > 1
	nameWidth := 0
	for _, ser := range s.Series {
		nameWidth = max(nameWidth, utf8.RuneCountInString(ser.Name))
	}
	var peak, total float64
	for _, ser := range s.Series {
		for _, v := range ser.Values {
			peak = max(peak, math.Abs(v))
			total += v
		}
	}
	for i, c := range s.Categories {
		for j, ser := range s.Series {
			if i >= len(ser.Values) {
				continue
			}
			v := ser.Values[i]
			head := c
			if j > 0 {
				head = ""
			}
			fmt.Fprintf(&b, "  %s%s  ", head, strings.Repeat(" ", width-utf8.RuneCountInString(head)))
			if multi {
				fmt.Fprintf(&b, "%s%s  ", ser.Name, strings.Repeat(" ", nameWidth-utf8.RuneCountInString(ser.Name)))
			}
			n := 0
			if peak > 0 {
				n = int(math.Round(math.Abs(v) / peak * barWidth))
			}
			if n == 0 && v != 0 {
				n = 1
			}
			b.WriteString(strings.Repeat("█", n))
			b.WriteString(strings.Repeat(" ", barWidth-n))
			fmt.Fprintf(&b, " %s", FormatNumber(v))
			if s.Type == Pie && total > 0 {
				fmt.Fprintf(&b, " (%.0f %%)", v/total*100)
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Significant writes v, a number below 1, in plain decimals to its first
// n significant digits, without an exponent: 0.0042, 0.00005.
func Significant(v float64, n int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := max(0, n-1-int(math.Floor(math.Log10(math.Abs(v)))))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// FormatNumber writes v with thousands separators and at most two
// decimals: 2644404 → "2,644,404", 86.8 → "86.8"; below 0.01, to its
// first two significant digits (0.0042).
func FormatNumber(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	if a := math.Abs(v); a > 0 && a < 0.01 {
		// Two decimals would show it as 0: its first significant digits.
		s = Significant(v, 2)
	}
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if s == "0" {
		sign = "" // no "-0"
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var out []byte
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, whole[i])
	}
	if hasFrac {
		return sign + string(out) + "." + frac
	}
	return sign + string(out)
}
