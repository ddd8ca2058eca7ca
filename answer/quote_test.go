package answer

import (
	"strings"
	"testing"
)

// What a refusal quotes of untrusted input: recognisable, never whole when
// long, and never a control character that would reach a terminal.
func TestQuoted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "short", in: "export_csv", want: `"export_csv"`},
		{name: "empty", in: "", want: `""`},
		{name: "40 characters stay whole", in: strings.Repeat("a", 40), want: `"` + strings.Repeat("a", 40) + `"`},
		{name: "41 characters are cut", in: strings.Repeat("a", 41), want: `"` + strings.Repeat("a", 39) + `…"`},
		{name: "cut between characters, not bytes", in: strings.Repeat("é", 300), want: `"` + strings.Repeat("é", 39) + `…"`},
		{name: "control characters escaped", in: "a\x1b[2Jb\n", want: `"a\x1b[2Jb\n"`},
		{name: "quotes escaped", in: `say "hi"`, want: `"say \"hi\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Quoted(tt.in); got != tt.want {
				t.Errorf("Quoted(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
