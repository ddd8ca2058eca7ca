package demo

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

// csvFacts are answers computed straight from data/steam.csv.gz, without the loader's
// parser, so that the database can be checked against an independent reading of the file.
type csvFacts struct {
	apps        int64
	byYear      map[string]int64 // "2018" -> rows released that year
	free        int64            // price is zero
	valve       int64            // apps whose developer list contains exactly "Valve"
	allPlatform int64            // apps on windows, mac and linux
	distinct    map[string]int64 // csv column -> distinct trimmed list items
	links       map[string]int64 // csv column -> (app, distinct item) pairs
	byID        map[string]map[string]string
}

var readFacts = sync.OnceValues(func() (csvFacts, error) {
	f, err := os.Open("data/steam.csv.gz")
	if err != nil {
		return csvFacts{}, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return csvFacts{}, err
	}
	r := csv.NewReader(zr)
	header, err := r.Read()
	if err != nil {
		return csvFacts{}, err
	}
	listCols := []string{"developer", "publisher", "platforms", "categories", "genres", "steamspy_tags"}
	fc := csvFacts{
		byYear:   map[string]int64{},
		distinct: map[string]int64{},
		links:    map[string]int64{},
		byID:     map[string]map[string]string{},
	}
	seen := map[string]map[string]bool{}
	for _, c := range listCols {
		seen[c] = map[string]bool{}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvFacts{}, err
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = rec[i]
		}
		fc.apps++
		fc.byYear[row["release_date"][:4]]++
		if strings.Trim(row["price"], "0.") == "" {
			fc.free++
		}
		for _, c := range listCols {
			items := map[string]bool{}
			for _, it := range strings.Split(row[c], ";") {
				if it = strings.TrimSpace(it); it != "" {
					items[it] = true
					seen[c][it] = true
				}
			}
			fc.links[c] += int64(len(items))
			if c == "developer" && items["Valve"] {
				fc.valve++
			}
			if c == "platforms" && items["windows"] && items["mac"] && items["linux"] {
				fc.allPlatform++
			}
		}
		fc.byID[row["appid"]] = row
	}
	for c, s := range seen {
		fc.distinct[c] = int64(len(s))
	}
	return fc, nil
})

// facts returns the CSV facts or fails the test.
func facts(tb testing.TB) csvFacts {
	tb.Helper()
	fc, err := readFacts()
	if err != nil {
		tb.Fatalf("read data/steam.csv.gz: %v", err)
	}
	return fc
}
