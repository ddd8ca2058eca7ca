package warehouse_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A form is a name and a number; anything else has no number, so no form
// is earlier than it.
func TestFormNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, form string
		wantName   string
		wantNumber int
		wantOK     bool
	}{
		{name: "name and number", form: "pg-1", wantName: "pg", wantNumber: 1, wantOK: true},
		{name: "two digits", form: "cube-12", wantName: "cube", wantNumber: 12, wantOK: true},
		{name: "a dash in the name", form: "my-pg-3", wantName: "my-pg", wantNumber: 3, wantOK: true},
		{name: "no dash", form: "v2"},
		{name: "no number", form: "pg-"},
		{name: "no name", form: "-1"},
		{name: "number too long", form: "pg-12345"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, number, ok := warehouse.FormNumber(tc.form)
			assert.Equal(t, tc.wantOK, ok, "FormNumber(%q): got ok %v, want %v", tc.form, ok, tc.wantOK)
			assert.Equal(t, tc.wantName, name, "FormNumber(%q): got name %q, want %q", tc.form, name, tc.wantName)
			assert.Equal(t, tc.wantNumber, number, "FormNumber(%q): got number %d, want %d", tc.form, number, tc.wantNumber)
		})
	}
}
