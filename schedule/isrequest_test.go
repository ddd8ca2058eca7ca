package schedule

import (
	"strings"
	"testing"
)

func TestIsRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want bool
	}{
		{name: "send me this weekly", text: "send me this every Monday at 9", want: true},
		{name: "post to a channel daily", text: "post this to #growth daily", want: true},
		{name: "post to a mentioned channel", text: "post this to <#C0123ABC|growth> every monday", want: true},
		{name: "schedule this", text: "schedule this weekly", want: true},
		{name: "can you schedule", text: "can you schedule it for every monday at 8?", want: true},
		{name: "alert me", text: "alert me when it is above 100", want: true},
		{name: "alert me checked hourly", text: "alert me when the count is above 100, checked every hour", want: true},
		{name: "notify me", text: "notify me if the count drops below 5", want: true},
		{name: "remind me", text: "remind me every morning", want: true},
		{name: "only a recurrence", text: "every day at 9 please", want: true},
		{name: "only a weekday recurrence", text: "every weekday at 8:30am as CSV", want: true},
		{name: "tell me when it changes", text: "tell me when it changes by more than 20%", want: true},
		{name: "let me know any row", text: "let me know when any row appears", want: true},
		{name: "send me this at 9", text: "send me this at 9", want: true},
		{name: "a time that is not one", text: "send me this daily at 25:00", want: true},
		{name: "every other week", text: "send me this every other week", want: true},
		{name: "the results to a channel", text: "send the results to #growth every friday at 5pm", want: true},
		{name: "share weekly", text: "share this with #growth every week", want: true},
		{name: "dm me daily", text: "DM me this every day", want: true},
		{name: "subscribe", text: "subscribe me to this", want: true},
		{name: "set up an alert", text: "set up an alert for when revenue falls below 5k", want: true},
		{name: "make it a weekly report", text: "make this a weekly report", want: true},
		{name: "make it recurring", text: "make it recurring, every monday", want: true},
		{name: "watch this", text: "watch this and tell me when it drops below 10", want: true},
		{name: "mention first", text: "<@U123ABC> every monday at 9", want: true},
		{name: "backticked cron", text: "`0 9 * * 1`", want: true},
		{name: "hourly with a row condition", text: "every hour, let me know if anything comes back", want: true},
		{name: "is it possible to alert me", text: "is it possible to alert me when signups drop below 10?", want: true},
		{name: "ok then every monday at 9", text: "ok, every monday at 9 then", want: true},
		{name: "only a recurrence and a place", text: "every monday in #growth", want: true},
		{name: "only a recurrence and a format", text: "every day as csv", want: true},
		{name: "monitor with a condition", text: "monitor this and alert if it goes above 100", want: true},
		{name: "keep an eye on it", text: "keep an eye on this for me", want: true},
		{name: "run it weekly", text: "run it again every week", want: true},

		{name: "released every year", text: "how many games were released every year", want: false},
		{name: "daily average", text: "what is the daily average of players", want: false},
		{name: "more than 100 reviews", text: "which games have more than 100 reviews", want: false},
		{name: "alert count by month", text: "alert count by month", want: false},
		{name: "monthly revenue", text: "show monthly revenue", want: false},
		{name: "signed up on monday", text: "how many users signed up on Monday", want: false},
		{name: "sign up every day", text: "how many users sign up every day", want: false},
		{name: "weekly active users", text: "what is the weekly active user count", want: false},
		{name: "revenue every month", text: "revenue every month in 2025", want: false},
		{name: "daily signups", text: "daily signups for the last 30 days", want: false},
		{name: "weekly alone", text: "weekly", want: false},
		{name: "monthly alone", text: "monthly", want: false},
		{name: "daily please", text: "daily please", want: false},
		{name: "by weekday", text: "revenue by weekday", want: false},
		{name: "weekday vs weekend", text: "compare weekday vs weekend traffic", want: false},
		{name: "orders at 9am", text: "orders placed at 9am on mondays", want: false},
		{name: "at 9 alone", text: "at 9", want: false},
		{name: "first release", text: "tell me when the first game was released", want: false},
		{name: "send me a list", text: "send me the list of top customers", want: false},
		{name: "send me a summary", text: "send me a weekly summary of revenue by region", want: false},
		{name: "send the list daily", text: "send me the list of users who signed up every day", want: false},
		{name: "posted daily", text: "how many messages were posted in #growth daily", want: false},
		{name: "messages in a channel", text: "messages posted in #growth daily", want: false},
		{name: "alerts fired", text: "which alerts fired more than 5 times", want: false},
		{name: "notifications hourly", text: "how many notifications were sent hourly", want: false},
		{name: "release schedule", text: "show me the schedule of upcoming releases", want: false},
		{name: "schedule of", text: "schedule of releases by month", want: false},
		{name: "alerts per day", text: "what is the average number of alerts per day", want: false},
		{name: "daily digest", text: "count of users who receive the daily digest", want: false},
		{name: "time of day", text: "what time of day do most orders come in", want: false},
		{name: "above 100 dollars", text: "list orders above 100 dollars", want: false},
		{name: "tell me the revenue", text: "tell me the weekly revenue", want: false},
		{name: "tell me every month", text: "tell me the revenue for every month of 2024", want: false},
		{name: "remind me what", text: "remind me what the daily average was", want: false},
		{name: "alerted me last week", text: "how many times did the system alert me last week", want: false},
		{name: "when did it drop", text: "when did revenue drop below 5k", want: false},
		{name: "any rows", text: "are there any rows where status is null", want: false},
		{name: "is it above", text: "is it above 100", want: false},
		{name: "show when", text: "show me when revenue dropped below 5k", want: false},
		{name: "let me know if more info", text: "let me know if you need more info", want: false},
		{name: "every customer", text: "every customer who ordered more than 5 times", want: false},
		{name: "mondays at 9 follow-up", text: "what about mondays at 9?", want: false},
		{name: "average on weekends", text: "average order value on weekends", want: false},
		{name: "daily active users", text: "daily active users last week", want: false},
		{name: "top 5 every monday", text: "top 5 products every monday", want: false},
		{name: "give me revenue", text: "give me revenue every month", want: false},
		{name: "break down by hour", text: "break it down by hour", want: false},
		{name: "hourly breakdown", text: "hourly breakdown please", want: false},
		{name: "per week", text: "orders per week since january", want: false},
		{name: "ping table", text: "ping latency by region", want: false},
		{name: "empty result", text: "why is it empty", want: false},
		{name: "csv export", text: "export this as csv", want: false},
		{name: "post to channel once", text: "post this to #growth", want: false},
		{name: "make it weekly is a granularity", text: "can you make it weekly", want: false},
		{name: "weekly instead", text: "make it weekly instead", want: false},
		{name: "track every week", text: "track this every week", want: false},
		{name: "break it down weekly", text: "break it down weekly", want: false},
		{name: "same but monthly", text: "same but monthly", want: false},
		{name: "only mondays", text: "only mondays", want: false},
		{name: "every day in march", text: "every day in march", want: false},
		{name: "daily revenue as a chart", text: "daily revenue as a chart", want: false},
		{name: "users active at midnight", text: "users active at midnight", want: false},
		{name: "a subject sends it", text: "users that send it every day", want: false},
		{name: "a subject schedules", text: "teams that schedule a weekly sync", want: false},
		{name: "recurrence before the verb", text: "every monday at 9 send me this", want: true},
		{name: "every day alone", text: "every day", want: false},
		{name: "each day alone", text: "each day", want: false},
		{name: "every hour alone", text: "every hour", want: false},
		{name: "every monday alone", text: "every monday", want: false},
		{name: "every 15 minutes alone", text: "every 15 minutes", want: false},
		{name: "monitor without a condition", text: "how do we monitor this", want: false},
		{name: "watch this video", text: "watch this video count by week", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := IsRequest(tt.text); got != tt.want {
				t.Errorf("IsRequest(%q): got %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestIsRequestLongMessage(t *testing.T) {
	t.Parallel()
	text := "send me this every Monday at 9. " + strings.Repeat("Some context about the numbers. ", 20)
	if got := IsRequest(text); got {
		t.Errorf("IsRequest(a %d-byte message): got %v, want false", len(text), got)
	}
}
