package schedule

import (
	"archive/zip"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A threshold is read whole or not at all: what is not read whole is
// asked back, never read as the part of it that looks like a number ("1e9"
// as 1).
func TestParseRequestNumbersReadWhole(t *testing.T) {
	t.Parallel()
	above := func(v float64) Condition { return Condition{Kind: CondAbove, Threshold: v, Column: "games"} }
	tests := []struct {
		name    string
		words   string // after "alert me when games is above "
		cond    Condition
		unclear string // a part of the wanted Unclear; "" when it must be empty
	}{
		{name: "digits", words: "100", cond: above(100)},
		{name: "thousands", words: "1,000", cond: above(1000)},
		{name: "millions", words: "1,000,000", cond: above(1e6)},
		{name: "a decimal", words: "2.5", cond: above(2.5)},
		{name: "a decimal under one", words: ".5", cond: above(0.5)},
		{name: "scientific", words: "1e9", cond: above(1e9)},
		{name: "scientific with a decimal", words: "1.5e6", cond: above(1.5e6)},
		{name: "scientific, capital", words: "2E3", cond: above(2000)},
		{name: "scientific, small", words: "-1e-3", cond: above(-0.001)},
		{name: "k", words: "1.5k", cond: above(1500)},
		{name: "m", words: "1.2m", cond: above(1.2e6)},
		{name: "bn", words: "3bn", cond: above(3e9)},
		{name: "a word", words: "2 million", cond: above(2e6)},
		{name: "a decimal and a word", words: "1.5 billion", cond: above(1.5e9)},
		{name: "a letter apart", words: "5 k", cond: above(5000)},
		{name: "dollars", words: "$10,000", cond: above(10000)},
		{name: "then a full stop", words: "100k.", cond: above(1e5)},
		{name: "then more words", words: "100, checked every hour", cond: above(100)},
		{name: "a decimal comma", words: "1,5", unclear: "I couldn't read “1,5” as a number"},
		{name: "a short group", words: "1,00", unclear: "“1,00”"},
		{name: "two points", words: "1.5.2", unclear: "“1.5.2”"},
		{name: "groups with spaces", words: "1 000 000", unclear: "“1 000 000”"},
		{name: "a power", words: "10^6", unclear: "“10^6”"},
		{name: "a fraction", words: "1/2", unclear: "“1/2”"},
		{name: "hexadecimal", words: "0x10", unclear: "“0x10”"},
		{name: "letters after", words: "12abc", unclear: "“12abc”"},
		{name: "an exponent missing", words: "3e", unclear: "“3e”"},
		{name: "two scales", words: "5k million", unclear: "“5k million”"},
		{name: "a scale and a percent", words: "5k%", unclear: "“5k%”"},
		{name: "a range", words: "100-200", unclear: "“100-200”"},
		{name: "too large", words: "1e999", unclear: "“1e999”"},
		{name: "a time after", words: "100 9am", unclear: "“100 9am”"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := "alert me when games is above " + tt.words
			got := ParseRequest(text, time.UTC)
			if got.Condition != tt.cond {
				t.Errorf("ParseRequest(%q).Condition: got %+v, want %+v", text, got.Condition, tt.cond)
			}
			switch {
			case tt.unclear == "" && got.Unclear != "":
				t.Errorf("ParseRequest(%q).Unclear: got %q, want none", text, got.Unclear)
			case tt.unclear != "" && !strings.Contains(got.Unclear, tt.unclear):
				t.Errorf("ParseRequest(%q).Unclear: got %q, want it to contain %q", text, got.Unclear, tt.unclear)
			}
			if tt.unclear != "" && got.Unread {
				t.Errorf("ParseRequest(%q).Unread: a number not read is asked back, not restated", text)
			}
			if !IsRequest(text) {
				t.Errorf("IsRequest(%q): false, want true", text)
			}
		})
	}
	// A change's percentage too.
	got := ParseRequest("tell me when it changes by more than 2,5%", time.UTC)
	if got.Condition != (Condition{}) || !strings.Contains(got.Unclear, "“2,5%”") {
		t.Errorf("a change by “2,5%%”: got condition %+v, unclear %q; want none and the number asked back", got.Condition, got.Unclear)
	}
}

// A time zone the words name is the schedule's; one named but not
// understood is said so, never replaced by the asker's.
func TestParseRequestZone(t *testing.T) {
	t.Parallel()
	asker := mustLoad(t, "America/New_York")
	tests := []struct {
		name, text string
		zone       string // Zone's name; "" for none
		spec       string
		unclear    string // a part of the wanted Unclear
		ignored    string
	}{
		{name: "a tz name", text: "send me this every day at 2:30am in Europe/London", zone: "Europe/London", spec: "30 2 * * *"},
		{name: "a tz name, lower case", text: "every day at 9 in europe/paris", zone: "Europe/Paris", spec: "0 9 * * *"},
		{name: "a tz name and time", text: "every day at 9, Europe/Berlin time", zone: "Europe/Berlin", spec: "0 9 * * *"},
		{name: "a tz name in brackets", text: "every day at 9 (Asia/Kolkata)", zone: "Asia/Kolkata", spec: "0 9 * * *"},
		{name: "a tz name of three parts", text: "every day at 9 in America/Argentina/Buenos_Aires", zone: "America/Argentina/Buenos_Aires", spec: "0 9 * * *"},
		{name: "a tz name split by a space", text: "every Monday at 9 America/New York", zone: "America/New_York", spec: "0 9 * * 1"},
		{name: "a tz name with small words", text: "every day at 9 in america/port-au-prince", zone: "America/Port-au-Prince", spec: "0 9 * * *"},
		{name: "an Etc zone", text: "every day at 9 in Etc/GMT+5", zone: "Etc/GMT+5", spec: "0 9 * * *"},
		{name: "UTC", text: "every day at 9 UTC", zone: "UTC", spec: "0 9 * * *"},
		{name: "GMT", text: "every day at 9 GMT", zone: "GMT", spec: "0 9 * * *"},
		{name: "a city's time", text: "every day at 9 London time", zone: "Europe/London", spec: "0 9 * * *"},
		{name: "a city of two words", text: "every day at 9 New York time", zone: "America/New_York", spec: "0 9 * * *"},
		{name: "a city of three words", text: "every day at 9 Ho Chi Minh time", zone: "Asia/Ho_Chi_Minh", spec: "0 9 * * *"},
		{name: "in a city's time", text: "every day at 9 in Tokyo time", zone: "Asia/Tokyo", spec: "0 9 * * *"},
		{name: "in a city", text: "post this to #growth at 9 every day in Tokyo", zone: "Asia/Tokyo", spec: "0 9 * * *"},
		{name: "in a city of two words", text: "every weekday at 8 in Los Angeles", zone: "America/Los_Angeles", spec: "0 8 * * 1-5"},
		{name: "a time zone", text: "every day at 9 in the Europe/Madrid time zone", zone: "Europe/Madrid", spec: "0 9 * * *"},
		{name: "a US region", text: "every day at 9 Pacific time", zone: "US/Pacific", spec: "0 9 * * *"},
		{name: "a US region's standard time", text: "every day at 9 Eastern standard time", zone: "US/Eastern", spec: "0 9 * * *"},
		{name: "an alert in a zone", text: "alert me when games is above 100 every hour in Europe/Berlin", zone: "Europe/Berlin", spec: "0 * * * *"},
		{name: "an alert without a recurrence", text: "alert me when games is above 100, Asia/Tokyo time", zone: "Asia/Tokyo"},
		{name: "a cron spec in a zone", text: "schedule this `0 9 * * 1` in Europe/London", zone: "Europe/London", spec: "0 9 * * 1"},
		{name: "the same zone twice", text: "every day at 9 in Europe/London, London time", zone: "Europe/London", spec: "0 9 * * *"},
		{name: "the asker's", text: "every day at 9 my time", spec: "0 9 * * *"},
		{name: "local time", text: "every day at 9 local time", spec: "0 9 * * *"},
		{name: "none", text: "every day at 9", spec: "0 9 * * *"},
		// Words that are no zone stay unread, as before.
		{name: "lunch time", text: "every day at lunch time", spec: "0 9 * * *", ignored: "lunch time"},
		{name: "a slash", text: "every day at 9 for the a/b test", spec: "0 9 * * *", ignored: "b test"},
		{name: "a place in a column", text: "alert me when sales in london is above 100"},
		// Said, not understood: asked back.
		{name: "a misspelt tz name", text: "every day at 9 in Europe/Londn", unclear: "I don't know the time zone “europe/londn”"},
		{name: "an unknown city", text: "every day at 9 San Francisco time", unclear: "I don't know the time zone “san francisco time”"},
		{name: "an abbreviation", text: "every day at 9am EST", unclear: "I can't tell which time zone “EST” is"},
		{name: "a European abbreviation", text: "every day at 9 CET", unclear: "“CET”"},
		{name: "a short abbreviation", text: "every day at 9am ET", unclear: "“ET”"},
		{name: "an offset", text: "every day at 9 UTC+2", unclear: "I can't take a time zone as an offset (“utc+2”)"},
		{name: "an offset with minutes", text: "every day at 9 GMT-05:30", unclear: "(“gmt-05:30”)"},
		{name: "two zones", text: "every day at 9 in Europe/London and Tokyo time", unclear: "I read more than one time zone (Europe/London and Asia/Tokyo)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseRequest(tt.text, asker)
			zone := ""
			if got.Zone != nil {
				zone = got.Zone.String()
			}
			if zone != tt.zone {
				t.Errorf("ParseRequest(%q).Zone: got %q, want %q", tt.text, zone, tt.zone)
			}
			want := asker
			if got.Zone != nil {
				want = got.Zone
			}
			if got.HasWhen && got.When.Location != want {
				t.Errorf("ParseRequest(%q).When.Location: got %v, want %v", tt.text, got.When.Location, want)
			}
			if tt.unclear == "" && got.When.Spec != tt.spec {
				t.Errorf("ParseRequest(%q).When.Spec: got %q, want %q", tt.text, got.When.Spec, tt.spec)
			}
			switch {
			case tt.unclear == "" && got.Unclear != "":
				t.Errorf("ParseRequest(%q).Unclear: got %q, want none", tt.text, got.Unclear)
			case tt.unclear != "" && !strings.Contains(got.Unclear, tt.unclear):
				t.Errorf("ParseRequest(%q).Unclear: got %q, want it to contain %q", tt.text, got.Unclear, tt.unclear)
			}
			if tt.unclear != "" && (got.Zone != nil || got.Unread) {
				t.Errorf("ParseRequest(%q): a zone not understood gave zone %v, unread %v; want none, asked back", tt.text, got.Zone, got.Unread)
			}
			if tt.unclear == "" && got.Ignored != tt.ignored {
				t.Errorf("ParseRequest(%q).Ignored: got %q, want %q", tt.text, got.Ignored, tt.ignored)
			}
		})
	}
}

// The zone names are those of the Go that builds the bot (go generate
// ./schedule after an upgrade), and each loads, from the tz database
// embedded by time/tzdata when the host has none.
func TestZoneNames(t *testing.T) {
	t.Parallel()
	for _, name := range zoneNames {
		if _, err := time.LoadLocation(name); err != nil {
			t.Errorf("LoadLocation(%q): %v", name, err)
		}
	}
	zr, err := zip.OpenReader(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Fatalf("the tz database of this Go: %v", err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, zoneNames) {
		t.Errorf("zoneNames has %d names, this Go's tz database %d: run go generate ./schedule", len(zoneNames), len(names))
	}
}

// Words of the message a reply quotes back are cut to 40 characters, the
// cut marked "…": a message of thousands of characters does not come back
// whole in "I couldn't read …" or "I don't know the time zone …". (A zone
// said in words quotes only the few words before "time".)
func TestParseRequestQuotesLongWordsCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, unclear, long string
	}{
		{name: "a number", text: "alert me when games is above 1" + strings.Repeat(" 000", 500),
			unclear: "I couldn't read “1 000 000 000 000 000 000 000 000 000 0…” as a number", long: strings.Repeat(" 000", 20)},
		{name: "a tz name", text: "every day at 9 in Europe/" + strings.Repeat("x", 500),
			unclear: "I don't know the time zone “europe/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…”", long: strings.Repeat("x", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseRequest(tt.text, time.UTC)
			if !strings.HasPrefix(got.Unclear, tt.unclear) {
				t.Errorf("ParseRequest(%.60q…).Unclear: got %.300q, want it to open with %q", tt.text, got.Unclear, tt.unclear)
			}
			if strings.Contains(got.Unclear, tt.long) || len(got.Unclear) > 400 {
				t.Errorf("ParseRequest(%.60q…).Unclear quotes the message whole: %d bytes", tt.text, len(got.Unclear))
			}
		})
	}
}
