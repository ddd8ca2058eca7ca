package answer

import (
	"strings"
	"unicode"
)

// Label is a column's name as a heading people read: "avg_price_gbp"
// becomes "Avg price (GBP)", "share_pct" "Share (%)", "app_id" "App ID",
// "positiveRatings" "Positive ratings". A name already written for people
// (it has a space) is kept, and so is Postgres' "?column?". The raw name
// stays what the CSV export and the SQL use.
func Label(name string) string {
	name = strings.TrimSpace(name)
	if name == "" || name == "?column?" || strings.ContainsRune(name, ' ') {
		return name
	}
	words := splitName(name)
	if len(words) == 0 {
		return name
	}
	var unit string
	if len(words) > 1 {
		switch last := words[len(words)-1]; last {
		case "usd", "gbp", "eur":
			unit, words = strings.ToUpper(last), words[:len(words)-1]
		case "pct", "percent":
			unit, words = "%", words[:len(words)-1]
		}
	}
	for i, w := range words {
		if up, ok := acronyms[w]; ok {
			words[i] = up
		} else if i == 0 {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	label := strings.Join(words, " ")
	if unit != "" {
		label += " (" + unit + ")"
	}
	return label
}

// acronyms are the words a label writes in capitals.
var acronyms = map[string]string{
	"id": "ID", "ids": "IDs", "url": "URL", "sku": "SKU", "api": "API", "ip": "IP",
	"usd": "USD", "gbp": "GBP", "eur": "EUR", "os": "OS", "dlc": "DLC", "kpi": "KPI",
}

// splitName cuts a column name into lower-case words at underscores,
// hyphens and lower-to-upper case changes ("positiveRatings"). A name in
// capitals with no separator ("SKU") is one word.
func splitName(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}
