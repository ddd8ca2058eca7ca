package store

import "testing"

func TestTruncateRunes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{name: "shorter", in: "héllo", n: 10, want: "héllo"},
		{name: "cut multibyte", in: "héllo", n: 2, want: "hé"},
		{name: "zero", in: "abc", n: 0, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := truncateRunes(tt.in, tt.n); got != tt.want {
				t.Errorf("truncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
