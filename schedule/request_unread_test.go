package schedule

import "testing"

// Words no reader takes are reported, so the caller can have them read
// again (by a model) or tell the person what was not read; a request whose
// every word was read, or that breaks a rule, is not unread.
func TestParseRequestUnread(t *testing.T) {
	t.Parallel()
	loc := mustLoad(t, "Europe/Berlin")
	tests := []struct {
		text    string
		spec    string // what was read all the same
		ignored string
		unread  bool
	}{
		// Read in full.
		{text: "send me this every Monday at 9", spec: "0 9 * * 1"},
		{text: "Send me this every Monday at 9:00 as CSV, thanks!", spec: "0 9 * * 1"},
		{text: "is it possible to alert me when signups drop below 10?"},
		{text: "keep an eye on this for me"},
		{text: "schedule this with cron 30 8 * * 1-5", spec: "30 8 * * 1-5"},
		{text: "post this to <#C123|growth> every day at 9 please", spec: "0 9 * * *"},
		// Nothing left to read: the person is asked, no one guesses.
		{text: "schedule this"},
		{text: "send me this at 9"},
		// Read, but with words left over that may change the reading.
		{text: "post this to #growth at the end of each week", spec: "0 9 * * 1", ignored: "end of", unread: true},
		{text: "ping me at lunchtime each day", spec: "0 9 * * *", ignored: "lunchtime", unread: true},
		{text: "send me this first thing every workday", spec: "0 9 * * 1-5", ignored: "first thing", unread: true},
		// Not read, with words that may say it.
		{text: "alert me every fortnight", ignored: "every fortnight", unread: true},
		{text: "notify me twice a day", ignored: "twice day", unread: true},
		{text: "alert me when revenue spikes", ignored: "revenue spikes", unread: true},
		// A rule broken: another reading would not help.
		{text: "send me this every monday at 9 except in august", ignored: "august"},
		{text: "send me this every 2 minutes"},
	}
	for _, tt := range tests {
		got := ParseRequest(tt.text, loc)
		if got.When.Spec != tt.spec || got.Ignored != tt.ignored || got.Unread != tt.unread {
			t.Errorf("ParseRequest(%q): got spec %q, ignored %q, unread %v; want %q, %q, %v",
				tt.text, got.When.Spec, got.Ignored, got.Unread, tt.spec, tt.ignored, tt.unread)
		}
	}
}

// The forms the model is told to restate unread words in (prompts/
// schedule.tmpl) are read in full, alone and together.
func TestParseRequestModelForms(t *testing.T) {
	t.Parallel()
	loc := mustLoad(t, "Europe/Berlin")
	tests := []struct {
		text string
		spec string
		to   Destination
		form Format
		cond Condition
	}{
		{text: "every day at 09:00", spec: "0 9 * * *"},
		{text: "every weekday at 08:30 to #growth as CSV", spec: "30 8 * * 1-5", to: toGrowth, form: FormatCSV},
		{text: "every Monday and Thursday at 17:00 here", spec: "0 17 * * 1,4", to: toThread},
		{text: "on the 1st of every month at 09:00 as a direct message", spec: "0 9 1 * *", to: toDM},
		{text: "every Friday at 17:00 to <#C0123ABC|growth>", spec: "0 17 * * 5", to: Destination{Kind: DestChannel, Channel: "C0123ABC", Name: "growth"}},
		{text: "cron 0 9 * * 1-5 as a direct message", spec: "0 9 * * 1-5", to: toDM},
		{text: "every hour when it changes by more than 20%", spec: "0 * * * *", cond: Condition{Kind: CondChange, Threshold: 20}},
		{text: "every 2 hours when games is above 100", spec: "0 */2 * * *", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "games"}},
		{text: "every 15 minutes when revenue is below 5000", spec: "*/15 * * * *", cond: Condition{Kind: CondBelow, Threshold: 5000, Column: "revenue"}},
		{text: "every day at 12:00 when any row appears", spec: "0 12 * * *", cond: Condition{Kind: CondAnyRows}},
	}
	for _, tt := range tests {
		got := ParseRequest(tt.text, loc)
		if got.Unclear != "" || got.Ignored != "" || got.When.Spec != tt.spec || got.To != tt.to || got.Format != tt.form || got.Condition != tt.cond {
			t.Errorf("ParseRequest(%q): got spec %q, to %+v, format %q, condition %+v, ignored %q, unclear %q; want %q, %+v, %q, %+v",
				tt.text, got.When.Spec, got.To, got.Format, got.Condition, got.Ignored, got.Unclear, tt.spec, tt.to, tt.form, tt.cond)
		}
	}
}
