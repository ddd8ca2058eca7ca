package schedule

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// numberPattern is a threshold as people write one, taken whole: the
// group is every character up to the next space, or the next word not
// starting with a digit ("1e9", "1,000,000", "2.5k", "1 000 000", even
// "1,5" or "10^6"), so that readNumber reads all of it or none; the second
// group is a suffix word ("%", "million", "percent"). Currency signs go.
const numberPattern = `[$€£]?\s?([-+]?(?:\d|\.\d)[0-9a-z.,^/_+'-]*(?:\s\d[0-9a-z.,^/_+'-]*)*)` +
	`\s?(%|(?:k|m|mm|b|bn|thousand|million|billion|percent|per\s+cent|pct)\b)?`

// suffixScale is what each number suffix multiplies by.
var suffixScale = map[string]float64{
	"k": 1e3, "thousand": 1e3,
	"m": 1e6, "mm": 1e6, "million": 1e6,
	"b": 1e9, "bn": 1e9, "billion": 1e9,
}

var (
	// plainNumberRe is digits with commas between every three, or none,
	// and a decimal part: "1000", "1,000", "2.5", ".5", "-3".
	plainNumberRe = regexp.MustCompile(`^[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)$`)
	// scientificRe is "1e9", "1.5e6", "2e-3".
	scientificRe = regexp.MustCompile(`^[-+]?(?:\d+(?:\.\d+)?|\.\d+)e[-+]?\d{1,3}$`)
	// letterSuffixRe is a plain number with its scale's letter: "2.5k".
	letterSuffixRe = regexp.MustCompile(`^(.+?)(k|mm|m|bn|b)$`)
)

// numberHelp says how to write a threshold, after a number that could not
// be read.
const numberHelp = "write it like 1000, 1,000, 2.5k, 1.5 million, 1e9 or 20%"

// unclearNumber is the sentence for a number not read whole.
func unclearNumber(written string) string {
	return fmt.Sprintf("I couldn't read “%s” as a number: %s.", Excerpt(written), numberHelp)
}

// readNumber reads numberPattern's number and suffix; percent is true for
// a percentage, which keeps its value (20% is 20). ok is false for any
// number not read whole — "1,5" (a decimal comma, or a thousand?), "1,00",
// "1.5.2", "10^6", "1 000 000", "0x10", "3e", "5k million" — which the
// caller refuses rather than reading part of it.
func readNumber(number, suffix string) (value float64, percent, ok bool) {
	suffix = strings.Join(strings.Fields(suffix), " ")
	scale := 1.0
	switch suffix {
	case "":
	case "%", "percent", "per cent", "pct":
		percent = true
	default:
		scale = suffixScale[suffix]
	}
	if m := letterSuffixRe.FindStringSubmatch(number); m != nil && plainNumberRe.MatchString(m[1]) {
		if suffix != "" {
			return 0, false, false // "5k million", "5k%"
		}
		number, scale = m[1], suffixScale[m[2]]
	}
	if !plainNumberRe.MatchString(number) && !scientificRe.MatchString(number) {
		return 0, false, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(number, ",", ""), 64)
	v *= scale
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, false
	}
	return v, percent, true
}
