package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mustLoad loads a time zone from the system's database.
func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		spec     string
		wantSpec string
		wantErr  string // a part of the error; "" for none
	}{
		{name: "five fields", spec: "0 9 * * 1", wantSpec: "0 9 * * 1"},
		{name: "extra spaces", spec: "  0  9 * *   1 ", wantSpec: "0 9 * * 1"},
		{name: "day names", spec: "0 9 * * MON-FRI", wantSpec: "0 9 * * mon-fri"},
		{name: "daily", spec: "@daily", wantSpec: "0 0 * * *"},
		{name: "weekly", spec: "@weekly", wantSpec: "0 0 * * 0"},
		{name: "hourly", spec: "@hourly", wantSpec: "0 * * * *"},
		{name: "monthly", spec: "@monthly", wantSpec: "0 0 1 * *"},
		{name: "leap day runs every four years", spec: "0 9 29 2 *", wantSpec: "0 9 29 2 *"},
		{name: "empty", spec: " ", wantErr: "the schedule is empty"},
		{name: "four fields", spec: "0 9 * *", wantErr: "has 4 fields, but a cron schedule has 5"},
		{name: "six fields", spec: "0 0 9 * * 1", wantErr: "has 6 fields"},
		{name: "hour out of range", spec: "0 25 * * *", wantErr: "“25” is not a valid hour in “0 25 * * *”: hours run from 0 to 23"},
		{name: "minute out of range", spec: "75 9 * * *", wantErr: "“75” is not a valid minute"},
		{name: "sunday is 0 not 7", spec: "0 9 * * 7", wantErr: "days of the week run from 0 (Sunday) to 6 (Saturday)"},
		{name: "no such month", spec: "0 9 1 13 *", wantErr: "not a valid month"},
		{name: "never runs", spec: "0 9 30 2 *", wantErr: "“0 9 30 2 *” never runs"},
		{name: "interval descriptor", spec: "@every 5m", wantErr: "is an interval, not a cron schedule"},
		{name: "unknown descriptor", spec: "@fortnightly", wantErr: "not a schedule name I know"},
		{name: "time zone inside", spec: "CRON_TZ=Europe/London 0 9 * * *", wantErr: "names a time zone inside the schedule"},
		{name: "words", spec: "every monday", wantErr: "has 2 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpec(tt.spec, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSpec(%q) error: got %v, want one containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tt.spec, err)
			}
			if got.Spec != tt.wantSpec {
				t.Errorf("ParseSpec(%q).Spec: got %q, want %q", tt.spec, got.Spec, tt.wantSpec)
			}
			if got.Location != time.UTC {
				t.Errorf("ParseSpec(%q, nil).Location: got %v, want UTC", tt.spec, got.Location)
			}
		})
	}
}

// ParseSpec's errors reach people as written (a spec typed in a message, a
// preset pressed), so a long spec is quoted cut short, whatever is wrong
// with it; a short one is quoted whole.
func TestParseSpecQuotesLongSpecsCut(t *testing.T) {
	t.Parallel()
	long := func(s string) string { return s + strings.Repeat("1,", 2000) + "1" }
	tests := []struct {
		name string
		spec string
		want string
	}{
		{name: "bad field", spec: "0 9 * * " + long("8,"),
			want: "“8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1…” is not a valid day of the week in “0 9 * * 8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1…”: days of the week run from 0 (Sunday) to 6 (Saturday), or sun to sat"},
		{name: "too many fields", spec: strings.Repeat("0 ", 3000),
			want: "“0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0…” has 3000 fields, but a cron schedule has 5: minute, hour, day of the month, month and day of the week, e.g. “0 9 * * 1”"},
		{name: "unknown descriptor", spec: "@" + strings.Repeat("a", 3000),
			want: "“@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…” is not a schedule name I know: use @hourly, @daily, @weekly, @monthly or @yearly, or five cron fields"},
		{name: "interval", spec: "@every " + strings.Repeat("5", 3000) + "m",
			want: "“@every 55555555555555555555555555555555…” is an interval, not a cron schedule: write it as five cron fields, e.g. “*/15 * * * *” for every 15 minutes"},
		{name: "time zone inside", spec: "TZ=" + strings.Repeat("x", 3000),
			want: "“TZ=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…” names a time zone inside the schedule: give the five cron fields alone, the time zone is set separately"},
		{name: "never runs", spec: "0 9 " + strings.Repeat("30,", 2000) + "31 2 *",
			want: "“0 9 30,30,30,30,30,30,30,30,30,30,30,30…” never runs: no month has that day"},
		{name: "cut between characters", spec: strings.Repeat("é ", 100),
			want: "“" + strings.Repeat("é ", 19) + "é…” has 100 fields, but a cron schedule has 5: minute, hour, day of the month, month and day of the week, e.g. “0 9 * * 1”"},
		{name: "short spec whole", spec: "0 25 * * *",
			want: "“25” is not a valid hour in “0 25 * * *”: hours run from 0 to 23"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseSpec(tt.spec, nil)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestParseSpecKeepsLocation(t *testing.T) {
	t.Parallel()
	ny := mustLoad(t, "America/New_York")
	w, err := ParseSpec("0 9 * * *", ny)
	if err != nil {
		t.Fatal(err)
	}
	if w.Location != ny {
		t.Errorf("Location: got %v, want %v", w.Location, ny)
	}
}

// TestNextDST lists the next five runs across each daylight-saving change
// of 2026 and asserts the exact UTC instants.
func TestNextDST(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		zone  string
		spec  string
		start string // RFC 3339
		want  []string
	}{
		{
			name: "New York 9:00 across spring forward", zone: "America/New_York", spec: "0 9 * * *",
			start: "2026-03-06T12:00:00-05:00",
			want:  []string{"2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z", "2026-03-09T13:00:00Z", "2026-03-10T13:00:00Z", "2026-03-11T13:00:00Z"},
		},
		{
			name: "New York 9:00 across fall back", zone: "America/New_York", spec: "0 9 * * *",
			start: "2026-10-30T12:00:00-04:00",
			want:  []string{"2026-10-31T13:00:00Z", "2026-11-01T14:00:00Z", "2026-11-02T14:00:00Z", "2026-11-03T14:00:00Z", "2026-11-04T14:00:00Z"},
		},
		{
			// 02:30 does not exist on 2026-03-08: the run moves an hour later
			// (03:30 EDT) instead of being skipped.
			name: "New York 2:30 in the spring gap runs once", zone: "America/New_York", spec: "30 2 * * *",
			start: "2026-03-06T12:00:00-05:00",
			want:  []string{"2026-03-07T07:30:00Z", "2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z", "2026-03-11T06:30:00Z"},
		},
		{
			// 01:30 happens twice on 2026-11-01 (EDT, then EST): it runs at the first.
			name: "New York 1:30 in the repeated hour runs once", zone: "America/New_York", spec: "30 1 * * *",
			start: "2026-10-30T12:00:00-04:00",
			want:  []string{"2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z", "2026-11-03T06:30:00Z", "2026-11-04T06:30:00Z"},
		},
		{
			// 01:00–02:00 GMT is skipped on 2026-03-29: 01:30 runs at 02:30 BST.
			name: "London 1:30 in the spring gap runs once", zone: "Europe/London", spec: "30 1 * * *",
			start: "2026-03-27T12:00:00Z",
			want:  []string{"2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z", "2026-04-01T00:30:00Z"},
		},
		{
			name: "London 1:30 in the repeated hour runs once", zone: "Europe/London", spec: "30 1 * * *",
			start: "2026-10-23T12:00:00Z",
			want:  []string{"2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z", "2026-10-28T01:30:00Z"},
		},
		{
			name: "London 9:00 weekly across spring forward", zone: "Europe/London", spec: "0 9 * * 1",
			start: "2026-03-20T12:00:00Z",
			want:  []string{"2026-03-23T09:00:00Z", "2026-03-30T08:00:00Z", "2026-04-06T08:00:00Z", "2026-04-13T08:00:00Z", "2026-04-20T08:00:00Z"},
		},
		{
			// Hourly schedules keep elapsed time: no run in the missing hour.
			name: "London hourly across spring forward", zone: "Europe/London", spec: "0 * * * *",
			start: "2026-03-28T23:30:00Z",
			want:  []string{"2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z", "2026-03-29T03:00:00Z", "2026-03-29T04:00:00Z"},
		},
		{
			// ...and a run in each pass of the repeated hour.
			name: "London hourly across fall back", zone: "Europe/London", spec: "0 * * * *",
			start: "2026-10-24T23:30:00Z",
			want:  []string{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z", "2026-10-25T03:00:00Z", "2026-10-25T04:00:00Z"},
		},
		{
			name: "New York every 30 minutes across fall back", zone: "America/New_York", spec: "*/30 * * * *",
			start: "2026-11-01T05:10:00Z",
			want:  []string{"2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z", "2026-11-01T07:30:00Z"},
		},
		{
			name: "two runs in the London spring gap", zone: "Europe/London", spec: "0,30 1 * * *",
			start: "2026-03-28T12:00:00Z",
			want:  []string{"2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:00:00Z", "2026-03-30T00:30:00Z", "2026-03-31T00:00:00Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			loc := mustLoad(t, tt.zone)
			w, err := ParseSpec(tt.spec, loc)
			if err != nil {
				t.Fatal(err)
			}
			at, err := time.Parse(time.RFC3339, tt.start)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for range tt.want {
				at = w.Next(at)
				if at.Location() != loc {
					t.Errorf("Next(...).Location(): got %v, want %v", at.Location(), loc)
				}
				got = append(got, at.UTC().Format(time.RFC3339))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("runs of %q in %s from %s:\n got %v\nwant %v", tt.spec, tt.zone, tt.start, got, tt.want)
			}
		})
	}
}

func TestNextInvalid(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, spec := range []string{"", "not a spec", "@every 1h", "0 9 31 2 *"} {
		if got := (When{Spec: spec}).Next(at); !got.IsZero() {
			t.Errorf("When{Spec: %q}.Next: got %v, want the zero time", spec, got)
		}
	}
}

func TestNextNilLocationIsUTC(t *testing.T) {
	t.Parallel()
	// 10:00 in Tokyo is 01:00 UTC: 09:00 UTC is later the same day.
	at := time.Date(2026, 6, 1, 10, 0, 0, 0, mustLoad(t, "Asia/Tokyo"))
	got := When{Spec: "0 9 * * *"}.Next(at)
	want := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Next: got %v, want %v", got, want)
	}
}

func TestTooOften(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, spec string
		want       bool
	}{
		{name: "every minute", spec: "* * * * *", want: true},
		{name: "every 2 minutes", spec: "*/2 * * * *", want: true},
		{name: "two minutes of one hour", spec: "0,1 9 * * *", want: true},
		{name: "every 5 minutes", spec: "*/5 * * * *", want: false},
		{name: "hourly", spec: "0 * * * *", want: false},
		{name: "weekdays at 9", spec: "0 9 * * 1-5", want: false},
		{name: "monthly", spec: "0 9 1 * *", want: false},
		{name: "23:58 on the 30th, 00:00 on the 31st", spec: "0,58 0,23 6,30,31 * *", want: true},
		{name: "23:58 on the last day of February, 00:00 on 1 March", spec: "0,58 0,23 1,29 2,3 *", want: true},
		{name: "23:58 on Sundays, 00:00 on Mondays", spec: "0,58 0,23 * * 0,1", want: true},
		{name: "23:58 and 00:00 on days never in a row", spec: "0,58 0,23 1,15 * *", want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := ParseSpec(tt.spec, nil)
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tt.spec, err)
			}
			if got := w.TooOften(); got != tt.want {
				t.Errorf("TooOften(%q) = %v, want %v", tt.spec, got, tt.want)
			}
		})
	}
}

// A run's time reads in the schedule's time zone, UTC without one.
func TestWhenWords(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		loc  *time.Location
		want string
	}{
		{"utc", time.UTC, "Monday 30 November at 09:00"},
		{"no time zone", nil, "Monday 30 November at 09:00"},
		{"new york", mustLoad(t, "America/New_York"), "Monday 30 November at 04:00"},
		{"tokyo", mustLoad(t, "Asia/Tokyo"), "Monday 30 November at 18:00"},
	}
	for _, tc := range tests {
		if got := (When{Spec: "0 9 * * 1", Location: tc.loc}).Words(at); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A zone whose clock jumps half an hour can bring two runs of an hourly
// schedule closer than its clock times are: in Australia/Lord_Howe,
// 01:58 and 02:30 are two minutes apart on the night the clock jumps.
func TestTooOftenAcrossAnOffsetChange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		zone string
		want bool
	}{
		{zone: "UTC", want: false},
		{zone: "Europe/London", want: false},
		{zone: "Australia/Lord_Howe", want: true},
	} {
		w, err := ParseSpec("30,58 * * * *", mustLoad(t, tt.zone))
		require.NoError(t, err)
		assert.Equal(t, tt.want, w.TooOften(), "TooOften(%q) in %s", w.Spec, tt.zone)
	}
}
