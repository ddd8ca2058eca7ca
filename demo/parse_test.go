package demo

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "one", in: "Valve", want: []string{"Valve"}},
		{name: "keeps order", in: "Action;FPS;Multiplayer", want: []string{"Action", "FPS", "Multiplayer"}},
		{name: "trims spaces", in: "Memes;Parody ;Funny", want: []string{"Memes", "Parody", "Funny"}},
		{name: "trims non-breaking space", in: "\u00a0Eurocom Entertainment Software", want: []string{"Eurocom Entertainment Software"}},
		{name: "dedupes", in: "Hubiao;Hubiao", want: []string{"Hubiao"}},
		{name: "dedupes after trim", in: "Team17 ;Team17", want: []string{"Team17"}},
		{name: "drops empty items", in: ";a;;b; ", want: []string{"a", "b"}},
		{name: "empty", in: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := splitList(tt.in)
			assert.Equal(t, tt.want, got, "splitList(%q)", tt.in)
		})
	}
}

func TestParseOwners(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		lo, hi  int64
		wantErr bool
	}{
		{name: "smallest bucket", in: "0-20000", lo: 0, hi: 20000},
		{name: "largest bucket", in: "100000000-200000000", lo: 100_000_000, hi: 200_000_000},
		{name: "no dash", in: "20000", wantErr: true},
		{name: "reversed", in: "50000-20000", wantErr: true},
		{name: "not a number", in: "lots-more", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lo, hi, err := parseOwners(tt.in)
			if tt.wantErr {
				assert.Error(t, err, "parseOwners(%q)", tt.in)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, [2]int64{tt.lo, tt.hi}, [2]int64{lo, hi}, "parseOwners(%q)", tt.in)
		})
	}
}

func TestParsePrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "pence kept exactly", in: "7.19", want: "7.19"},
		{name: "free", in: "0.0", want: "0.0"},
		{name: "most expensive", in: "421.99", want: "421.99"},
		{name: "negative", in: "-1.00", wantErr: true},
		{name: "text", in: "free", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePrice(tt.in)
			if tt.wantErr {
				assert.Error(t, err, "parsePrice(%q)", tt.in)
				return
			}
			assert.NoError(t, err)
			v, err := got.Value()
			assert.NoError(t, err)
			assert.Equal(t, tt.want, v, "parsePrice(%q)", tt.in)
		})
	}
}

func TestParseEmbeddedCSV(t *testing.T) {
	t.Parallel()
	apps, err := parseApps(steamCSVGz)
	assert.NoError(t, err)
	assert.Len(t, apps, 27075, "rows in the embedded CSV")
}
