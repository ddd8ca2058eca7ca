package schedule

import (
	"strconv"
	"strings"
)

// numberPattern is a number as people write one in a threshold: "100",
// "1,000", "2.5k", "1.2m", "$5k", "20%", "20 percent", "-3.5". Its groups
// are the digits and the suffix.
const numberPattern = `[$€£]?\s?([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+)\s?(%|(?:k|m|mm|b|bn|thousand|million|billion|percent|per\s+cent|pct)\b)?`

// suffixScale is what each number suffix multiplies by.
var suffixScale = map[string]float64{
	"k": 1e3, "thousand": 1e3,
	"m": 1e6, "mm": 1e6, "million": 1e6,
	"b": 1e9, "bn": 1e9, "billion": 1e9,
}

// readNumber reads numberPattern's digits and suffix; percent is true for a
// percentage, which keeps its value (20% is 20).
func readNumber(digits, suffix string) (value float64, percent, ok bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(digits, ",", ""), 64)
	if err != nil {
		return 0, false, false
	}
	suffix = strings.Join(strings.Fields(suffix), " ")
	switch suffix {
	case "":
		return v, false, true
	case "%", "percent", "per cent", "pct":
		return v, true, true
	}
	return v * suffixScale[suffix], false, true
}
