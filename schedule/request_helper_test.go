package schedule

import (
	"strings"
	"testing"
	"time"
)

// requestCase is one message and what ParseRequest must read from it.
type requestCase struct {
	name     string
	text     string
	spec     string // When.Spec; "" when no recurrence is read
	describe string // When.Describe()
	to       Destination
	format   Format
	cond     Condition
	unclear  string // a part of the wanted Unclear; "" when it must be empty
}

// runRequestCases checks every field ParseRequest returns for each case.
func runRequestCases(t *testing.T, tests []requestCase) {
	t.Helper()
	loc := mustLoad(t, "Europe/Berlin")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseRequest(tt.text, loc)
			if got.When.Spec != tt.spec {
				t.Errorf("ParseRequest(%q).When.Spec: got %q, want %q", tt.text, got.When.Spec, tt.spec)
			}
			if got.HasWhen != (tt.spec != "") {
				t.Errorf("ParseRequest(%q).HasWhen: got %v, want %v", tt.text, got.HasWhen, tt.spec != "")
			}
			if got.HasWhen && got.When.Location != loc {
				t.Errorf("ParseRequest(%q).When.Location: got %v, want %v", tt.text, got.When.Location, loc)
			}
			if d := got.When.Describe(); d != tt.describe {
				t.Errorf("ParseRequest(%q).When.Describe(): got %q, want %q", tt.text, d, tt.describe)
			}
			if got.To != tt.to {
				t.Errorf("ParseRequest(%q).To: got %+v, want %+v", tt.text, got.To, tt.to)
			}
			if got.Format != tt.format {
				t.Errorf("ParseRequest(%q).Format: got %q, want %q", tt.text, got.Format, tt.format)
			}
			if got.Condition != tt.cond {
				t.Errorf("ParseRequest(%q).Condition: got %+v, want %+v", tt.text, got.Condition, tt.cond)
			}
			switch {
			case tt.unclear == "" && got.Unclear != "":
				t.Errorf("ParseRequest(%q).Unclear: got %q, want none", tt.text, got.Unclear)
			case tt.unclear != "" && !strings.Contains(got.Unclear, tt.unclear):
				t.Errorf("ParseRequest(%q).Unclear: got %q, want it to contain %q", tt.text, got.Unclear, tt.unclear)
			}
		})
	}
}

// Destinations the tables use.
var (
	toDM      = Destination{Kind: DestDM}
	toThread  = Destination{Kind: DestThread}
	toHere    = Destination{Kind: DestChannel}
	toGrowth  = Destination{Kind: DestChannel, Name: "growth"}
	everyDay9 = "every day at 09:00"
)

func TestParseRequestNilLocation(t *testing.T) {
	t.Parallel()
	got := ParseRequest("every day at 9", nil)
	if got.When.Location != time.UTC {
		t.Errorf("When.Location: got %v, want UTC", got.When.Location)
	}
}
