package pgwarehouse_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/sqlguard"
)

// TestStaticGuardStopsWhatOnlyItCan proves the other half of the defence:
// every statement the database layer lets run, or only bounds
// (guardOnly), is rejected by the static guard with its class.
func TestStaticGuardStopsWhatOnlyItCan(t *testing.T) {
	t.Parallel()
	p := sqlguard.Policy{Schemas: []string{"analytics"}, Tables: []string{"orders", "customers"}}
	for _, tt := range guardOnly {
		err := sqlguard.Check(tt.sql, p)
		var rej *sqlguard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%s: the guard accepted %q", tt.name, tt.sql)
			continue
		}
		assert.Equal(t, tt.class, string(rej.Class), "%s: class (reason %q)", tt.name, rej.Reason)
	}
}
