package demo

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// csvColumns is the header of steam.csv, in file order. The parser checks it so that a
// replaced data file with shuffled columns fails loudly instead of loading garbage.
var csvColumns = []string{
	"appid", "name", "release_date", "english", "developer", "publisher", "platforms",
	"required_age", "categories", "genres", "steamspy_tags", "achievements",
	"positive_ratings", "negative_ratings", "average_playtime", "median_playtime",
	"owners", "price",
}

const (
	colAppID = iota
	colName
	colReleaseDate
	colEnglish
	colDeveloper
	colPublisher
	colPlatforms
	colRequiredAge
	colCategories
	colGenres
	colTags
	colAchievements
	colPositive
	colNegative
	colAvgPlaytime
	colMedianPlaytime
	colOwners
	colPrice
)

// app is one parsed CSV row. Derived columns (release_year, total_ratings, positive_pct,
// owners_midpoint, is_free) are computed by Postgres as generated columns, so their
// definition lives in one place: schema.sql.
type app struct {
	id             int32
	name           string
	releaseDate    time.Time
	english        bool
	requiredAge    int32
	achievements   int32
	positive       int32
	negative       int32
	avgPlaytime    int32
	medianPlaytime int32
	ownersMin      int64
	ownersMax      int64
	price          pgtype.Numeric

	developers []string
	publishers []string
	platforms  []string
	categories []string
	genres     []string
	tags       []string // SteamSpy order: index 0 is rank 1
}

// parseApps reads the gzipped steam.csv.
func parseApps(gz []byte) ([]app, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("parse steam csv: %w", err)
	}
	defer zr.Close()

	r := csv.NewReader(zr)
	r.FieldsPerRecord = len(csvColumns)
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("parse steam csv header: %w", err)
	}
	if !slices.Equal(header, csvColumns) {
		return nil, fmt.Errorf("parse steam csv: header %q, want %q", header, csvColumns)
	}

	apps := make([]app, 0, 27100)
	seen := make(map[int32]bool, 27100)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse steam csv: %w", err)
		}
		line, _ := r.FieldPos(0)
		a, err := parseRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("parse steam csv line %d: %w", line, err)
		}
		if seen[a.id] {
			return nil, fmt.Errorf("parse steam csv line %d: duplicate appid %d", line, a.id)
		}
		seen[a.id] = true
		apps = append(apps, a)
	}
	return apps, nil
}

func parseRecord(rec []string) (app, error) {
	var (
		a    app
		errs []error
	)
	int32Field := func(col int) int32 {
		v, err := strconv.ParseInt(rec[col], 10, 32)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", csvColumns[col], err))
		}
		return int32(v)
	}
	a.id = int32Field(colAppID)
	a.name = strings.TrimSpace(rec[colName])
	a.requiredAge = int32Field(colRequiredAge)
	a.achievements = int32Field(colAchievements)
	a.positive = int32Field(colPositive)
	a.negative = int32Field(colNegative)
	a.avgPlaytime = int32Field(colAvgPlaytime)
	a.medianPlaytime = int32Field(colMedianPlaytime)

	var err error
	if a.releaseDate, err = time.Parse(time.DateOnly, rec[colReleaseDate]); err != nil {
		errs = append(errs, fmt.Errorf("release_date: %w", err))
	}
	switch rec[colEnglish] {
	case "0", "1":
		a.english = rec[colEnglish] == "1"
	default:
		errs = append(errs, fmt.Errorf("english: %q is not 0 or 1", rec[colEnglish]))
	}
	if a.ownersMin, a.ownersMax, err = parseOwners(rec[colOwners]); err != nil {
		errs = append(errs, err)
	}
	if a.price, err = parsePrice(rec[colPrice]); err != nil {
		errs = append(errs, err)
	}

	a.developers = splitList(rec[colDeveloper])
	a.publishers = splitList(rec[colPublisher])
	a.platforms = splitList(rec[colPlatforms])
	a.categories = splitList(rec[colCategories])
	a.genres = splitList(rec[colGenres])
	a.tags = splitList(rec[colTags])
	if len(a.tags) > 3 {
		errs = append(errs, fmt.Errorf("steamspy_tags: %d tags, want at most 3", len(a.tags)))
	}
	return a, errors.Join(errs...)
}

// parseOwners turns a SteamSpy bucket such as "20000-50000" into its bounds.
func parseOwners(s string) (lo, hi int64, err error) {
	los, his, ok := strings.Cut(s, "-")
	if ok {
		lo, err = strconv.ParseInt(los, 10, 64)
	}
	if ok && err == nil {
		hi, err = strconv.ParseInt(his, 10, 64)
	}
	if !ok || err != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("owners: %q is not a LOW-HIGH range", s)
	}
	return lo, hi, nil
}

// parsePrice keeps the price as an exact decimal: going through float64 could turn 7.19
// into 7.1899999... before Postgres rounds it.
func parsePrice(s string) (pgtype.Numeric, error) {
	var n pgtype.Numeric
	f, err := strconv.ParseFloat(s, 64)
	if err == nil && f < 0 {
		err = errors.New("negative")
	}
	if err == nil {
		err = n.Scan(s)
	}
	if err != nil {
		return pgtype.Numeric{}, fmt.Errorf("price %q: %w", s, err)
	}
	return n, nil
}

// splitList splits a ';'-separated field, trimming each item (the data has stray spaces and
// non-breaking spaces, e.g. "Dystopian ") and dropping empty and repeated items, keeping
// first-seen order because SteamSpy tag order is their rank.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ";") {
		item = strings.TrimSpace(item)
		if item != "" && !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	return out
}
