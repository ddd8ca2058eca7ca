package cubewarehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/cube"
)

// FingerprintForm names the form of fingerprint's fingerprints
// (warehouse.Dialect.FingerprintForm). A change to what fingerprint
// returns for any query names a new one ("cube-2"): TestFingerprintForm
// fails until it does.
const FingerprintForm = "cube-1"

// fingerprint identifies a Cube query by its normalised form: decoded into
// cube.Query and encoded again, so spacing, key order and the three ways
// of writing the order make no difference.
func fingerprint(query string) (string, error) {
	q, err := decode(query)
	if err != nil {
		return "", err
	}
	norm, err := json.Marshal(q)
	if err != nil {
		return "", fmt.Errorf("fingerprint the Cube query: %w", err)
	}
	return fingerprintOf(string(norm)), nil
}

// fingerprintOf is the fingerprint of a query already in its normalised
// form, as Check encodes it.
func fingerprintOf(norm string) string {
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:8])
}

// tables lists the cubes a query's members belong to, lower case.
func tables(query string) ([]string, error) {
	q, err := decode(query)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(member string) {
		if name, _, ok := strings.Cut(member, "."); ok && !slices.Contains(out, strings.ToLower(name)) {
			out = append(out, strings.ToLower(name))
		}
	}
	for _, ms := range [][]string{q.Measures, q.Dimensions, q.Segments} {
		for _, m := range ms {
			add(m)
		}
	}
	for _, td := range q.TimeDimensions {
		add(td.Dimension)
	}
	var filters func([]cube.Filter)
	filters = func(fs []cube.Filter) {
		for _, f := range fs {
			add(f.Member)
			filters(f.Or)
			filters(f.And)
		}
	}
	filters(q.Filters)
	for _, o := range q.Order {
		add(o.Member)
	}
	return out, nil
}

func decode(query string) (cube.Query, error) {
	var q cube.Query
	if err := json.Unmarshal([]byte(query), &q); err != nil {
		return q, fmt.Errorf("read the Cube query: %w", err)
	}
	return q, nil
}
