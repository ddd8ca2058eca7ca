package schedule

import "testing"

func TestParseRequestCondition(t *testing.T) {
	t.Parallel()
	hourly := "every hour, on the hour"
	runRequestCases(t, []requestCase{
		{name: "count above, checked hourly", text: "alert me when the count is above 100, checked every hour", spec: "0 * * * *", describe: hourly, cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}},
		{name: "it is above", text: "alert me when it is above 100", cond: Condition{Kind: CondAbove, Threshold: 100}},
		{name: "it's over a thousand", text: "alert me when it’s over 1,000", cond: Condition{Kind: CondAbove, Threshold: 1000}},
		{name: "drops below", text: "notify me if the count drops below 5", cond: Condition{Kind: CondBelow, Threshold: 5, Column: "count"}},
		{name: "below 5k", text: "alert me when revenue drops below 5k", cond: Condition{Kind: CondBelow, Threshold: 5000, Column: "revenue"}},
		{name: "exceeds 2.5k hourly", text: "alert me if signups exceed 2.5k every hour", spec: "0 * * * *", describe: hourly, cond: Condition{Kind: CondAbove, Threshold: 2500, Column: "signups"}},
		{name: "more than 1.2m", text: "alert me when revenue is more than 1.2m", cond: Condition{Kind: CondAbove, Threshold: 1.2e6, Column: "revenue"}},
		{name: "greater than dollars", text: "alert me when total sales is greater than $10,000", cond: Condition{Kind: CondAbove, Threshold: 10000, Column: "total sales"}},
		{name: "symbol", text: "alert me when count > 100", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}},
		{name: "slack escaped symbol", text: "alert me when count &gt;= 100", cond: Condition{Kind: CondAtLeast, Threshold: 100, Column: "count"}},
		{name: "at least", text: "alert me when orders is at least 50", cond: Condition{Kind: CondAtLeast, Threshold: 50, Column: "orders"}},
		{name: "hits", text: "ping me once it hits 1 million", cond: Condition{Kind: CondAtLeast, Threshold: 1e6}},
		{name: "at most", text: "alert me when stock is at most 3", cond: Condition{Kind: CondAtMost, Threshold: 3, Column: "stock"}},
		{name: "less or equal symbol", text: "alert me when stock <= 3", cond: Condition{Kind: CondAtMost, Threshold: 3, Column: "stock"}},
		{name: "no more than", text: "alert me when stock is no more than 10", cond: Condition{Kind: CondAtMost, Threshold: 10, Column: "stock"}},
		{name: "under a percent", text: "notify me when errors are under 1%", cond: Condition{Kind: CondBelow, Threshold: 1, Column: "errors", Unit: UnitPercent}},
		{name: "falls below a percentage", text: "notify me when conversion falls below 2.5%", cond: Condition{Kind: CondBelow, Threshold: 2.5, Column: "conversion", Unit: UnitPercent}},
		{name: "above a percent keeps it", text: "alert me when error_rate is above 5%", cond: Condition{Kind: CondAbove, Threshold: 5, Column: "error_rate", Unit: UnitPercent}},
		{name: "percent in words", text: "alert me when churn is at least 3 percent", cond: Condition{Kind: CondAtLeast, Threshold: 3, Column: "churn", Unit: UnitPercent}},
		{name: "negative threshold", text: "alert me when margin is below -500", cond: Condition{Kind: CondBelow, Threshold: -500, Column: "margin"}},
		{name: "snake case column", text: "alert me when active_users is above 100", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "active_users"}},
		{name: "bold column", text: "alert me when the *count* is above 100", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}},
		{name: "daily in the column", text: "alert me when daily active users drops below 500 every morning", spec: "0 9 * * *", describe: everyDay9, cond: Condition{Kind: CondBelow, Threshold: 500, Column: "daily active users"}},
		{name: "changes by more than", text: "tell me when it changes by more than 20%", cond: Condition{Kind: CondChange, Threshold: 20}},
		{name: "moves percent", text: "tell me when it moves more than 20 percent", cond: Condition{Kind: CondChange, Threshold: 20}},
		{name: "changes by", text: "let me know when revenue changes by 20%", cond: Condition{Kind: CondChange, Threshold: 20, Column: "revenue"}},
		{name: "any change", text: "tell me whenever it changes", cond: Condition{Kind: CondChange}},
		{name: "change without percent", text: "tell me when it changes by 20", unclear: "as a percentage"},
		{name: "one direction", text: "alert me when revenue increases by 10%", unclear: "either direction"},
		{name: "any row", text: "let me know when any row appears", cond: Condition{Kind: CondAnyRows}},
		{name: "any results", text: "let me know when there are any results", cond: Condition{Kind: CondAnyRows}},
		{name: "anything comes back", text: "alert me if anything comes back", cond: Condition{Kind: CondAnyRows}},
		{name: "not empty", text: "alert me when it isn't empty", cond: Condition{Kind: CondAnyRows}},
		{name: "new rows hourly", text: "every hour, let me know when new rows show up", spec: "0 * * * *", describe: hourly, cond: Condition{Kind: CondAnyRows}},
		{name: "empty", text: "alert me when it's empty", cond: Condition{Kind: CondNoRows}},
		{name: "no rows", text: "alert me when there are no rows", cond: Condition{Kind: CondNoRows}},
		{name: "two conditions", text: "alert me when count is above 100 or below 5", unclear: "more than one condition"},
		{name: "unreadable condition", text: "alert me when the weather is nice", unclear: "couldn't read when to alert you"},
		{name: "condition and a bare time", text: "alert me when the count is above 100 at 9", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}, unclear: "how often"},
		{name: "if possible is no condition", text: "send me this every monday if possible", spec: "0 9 * * 1", describe: "every Monday at 09:00", to: toDM},
		{name: "everything at once", text: "every hour, alert me in #ops as csv when count is above 100", spec: "0 * * * *", describe: hourly,
			to: Destination{Kind: DestChannel, Name: "ops"}, format: FormatCSV, cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}},
	})
}

func TestParseRequestDestination(t *testing.T) {
	t.Parallel()
	monday := "every Monday at 09:00"
	runRequestCases(t, []requestCase{
		{name: "mention with label", text: "post this to <#C0123ABC|growth> every Monday", spec: "0 9 * * 1", describe: monday, to: Destination{Kind: DestChannel, Channel: "C0123ABC", Name: "growth"}},
		{name: "mention without label", text: "post this in <#C0123ABC> daily", spec: "0 9 * * *", describe: everyDay9, to: Destination{Kind: DestChannel, Channel: "C0123ABC"}},
		{name: "channel name", text: "post this to #growth every day at 9", spec: "0 9 * * *", describe: everyDay9, to: toGrowth},
		{name: "channel name with dashes", text: "share it in #team-growth_2 weekly", spec: "0 9 * * 1", describe: monday, to: Destination{Kind: DestChannel, Name: "team-growth_2"}},
		{name: "the channel", text: "post this to the channel every day", spec: "0 9 * * *", describe: everyDay9, to: toHere},
		{name: "this channel", text: "post it in this channel every monday", spec: "0 9 * * 1", describe: monday, to: toHere},
		{name: "dm me", text: "DM me this every day", spec: "0 9 * * *", describe: everyDay9, to: toDM},
		{name: "in a dm", text: "every day in a DM", spec: "0 9 * * *", describe: everyDay9, to: toDM},
		{name: "privately", text: "send it to me privately every monday", spec: "0 9 * * 1", describe: monday, to: toDM},
		{name: "here", text: "post it here every day", spec: "0 9 * * *", describe: everyDay9, to: toThread},
		{name: "in this thread", text: "in this thread every monday please", spec: "0 9 * * 1", describe: monday, to: toThread},
		{name: "in the thread", text: "send it in the thread every monday", spec: "0 9 * * 1", describe: monday, to: toThread},
		{name: "a channel beats send me", text: "send me this in #growth daily", spec: "0 9 * * *", describe: everyDay9, to: toGrowth},
		{name: "two channels", text: "post this to #growth and #sales daily", spec: "0 9 * * *", describe: everyDay9, unclear: "more than one place to send it (#growth and #sales)"},
		{name: "a dm and a channel", text: "DM me and post it in #growth daily", spec: "0 9 * * *", describe: everyDay9, unclear: "more than one place"},
		{name: "the same channel twice", text: "post to #growth every day, in #growth", spec: "0 9 * * *", describe: everyDay9, to: toGrowth},
		{name: "no place", text: "every monday at 9", spec: "0 9 * * 1", describe: monday},
	})
}

func TestParseRequestFormat(t *testing.T) {
	t.Parallel()
	runRequestCases(t, []requestCase{
		{name: "as csv", text: "send me this every day as CSV", spec: "0 9 * * *", describe: everyDay9, to: toDM, format: FormatCSV},
		{name: "as a csv", text: "every day as a csv", spec: "0 9 * * *", describe: everyDay9, format: FormatCSV},
		{name: "csv file", text: "every day, csv file please", spec: "0 9 * * *", describe: everyDay9, format: FormatCSV},
		{name: "as a file", text: "every day as a file", spec: "0 9 * * *", describe: everyDay9, format: FormatCSV},
		{name: "attach the csv", text: "every day and attach the csv", spec: "0 9 * * *", describe: everyDay9, format: FormatCSV},
		{name: "as a chart", text: "every day as a chart", spec: "0 9 * * *", describe: everyDay9, format: FormatAnswer},
		{name: "with the table", text: "every day with the table", spec: "0 9 * * *", describe: everyDay9, format: FormatAnswer},
		{name: "both", text: "every day as csv with the chart", spec: "0 9 * * *", describe: everyDay9, unclear: "a CSV file or the answer"},
	})
}
