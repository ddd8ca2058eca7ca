package warehouse

import (
	"regexp"
	"strconv"
)

// FormNumber splits a fingerprint form (Dialect.FingerprintForm) into its
// name and number ("pg-2": "pg", 2), of at most four digits; ok is false
// for a form not named so.
// A form is earlier than another of its name with a higher number, and
// stored examples only move to a later form
// (store.DB.RefingerprintEarlier), so a backend whose fingerprints change
// names the next number of the same name.
func FormNumber(form string) (name string, number int, ok bool) {
	m := formNumbered.FindStringSubmatch(form)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	return m[1], n, true
}

// formNumbered is a form's name and number: the forms earlier than one
// are listed (store.DB.RefingerprintEarlier), so the number stays small.
var formNumbered = regexp.MustCompile(`^(.+)-([0-9]{1,4})$`)
