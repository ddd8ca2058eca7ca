package nodes

import "testing"

func TestBlank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"empty", "", true},
		{"white space", " \t\r\n\u00a0\u3000", true},
		{"NUL and controls", "\x00\x07\x7f\u0085", true},
		{"zero-width and byte order mark", "\u200b\u200c\u200d\u2060\ufeff", true},
		{"bidi marks and overrides", "\u200e\u200f\u202e\u2066", true},
		{"fillers", "\u3164\u115f\u2800", true},
		{"combining marks alone", "\u0301\u20dd", true},
		{"escape sequences", "\x1b[2J\x1b]0;pwned\a\x1b[1;31m\x1bc\u009b2J", true},
		{"a question", "How many games?", false},
		{"a question in escapes", "\x1b[1m2018?\x1b[0m", false},
		{"a letter with its mark", "e\u0301", false},
		{"an emoji", "👍", false},
		{"a replaced byte", "\ufffd", false},
		{"a bracket alone", "[", false},
	}
	for _, tt := range tests {
		if got := Blank(tt.text); got != tt.want {
			t.Errorf("%s: Blank(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
}
