package demo

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// docs/demo-data.md: the CSV is shipped unchanged, as demo/data/SOURCE.txt
// records: the embedded file and what it decompresses to have the sizes
// and SHA-256 sums written there.
func TestEmbeddedCSVMatchesSource(t *testing.T) {
	t.Parallel()
	source, err := os.ReadFile("data/SOURCE.txt")
	require.NoError(t, err)
	sums := regexp.MustCompile(`(compressed|uncompressed) +([\d,]+) bytes +sha256 ([0-9a-f]{64})`).FindAllStringSubmatch(string(source), -1)
	require.Len(t, sums, 2, "SOURCE.txt records the compressed and uncompressed file")
	zr, err := gzip.NewReader(bytes.NewReader(steamCSVGz))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	for _, m := range sums {
		data := steamCSVGz
		if m[1] == "uncompressed" {
			data = plain
		}
		sum := sha256.Sum256(data)
		assert.Equal(t, m[3], hex.EncodeToString(sum[:]), "%s sha256", m[1])
		assert.Equal(t, strings.ReplaceAll(m[2], ",", ""), strconv.Itoa(len(data)), "%s size", m[1])
	}
	assert.Contains(t, string(source), "Author:   Nik Davis")
	assert.Contains(t, string(source), "CC BY 4.0")
}
