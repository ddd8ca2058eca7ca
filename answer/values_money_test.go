package answer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Money as PostgreSQL writes it under an English locale reads as its
// number; another locale's spelling is no number rather than a wrong one.
func TestMoneyNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{"$12,345.00": 12345, "-$1.50": -1.5, "($1.50)": -1.5, "$0.99": 0.99, "£1,234,567.8": 1234567.8, "$5": 5} {
		got, err := moneyNumber("money", in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for _, in := range []string{"1.234,50 €", "1 234,50 €", "€ -1,50", "$1,23.00", "($1.50", "12 apples", ""} {
		_, err := moneyNumber("money", in)
		assert.Error(t, err, in)
	}
	_, err := moneyNumber("text", "$1.00")
	assert.Error(t, err, "only a money column's text")
}
