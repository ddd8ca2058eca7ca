package schedule

import "testing"

func TestWhenDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec string
		want string
	}{
		{name: "daily", spec: "0 9 * * *", want: "every day at 09:00"},
		{name: "weekly", spec: "0 9 * * 1", want: "every Monday at 09:00"},
		{name: "weekdays", spec: "30 8 * * 1-5", want: "every weekday (Monday to Friday) at 08:30"},
		{name: "weekdays as names", spec: "30 8 * * mon-fri", want: "every weekday (Monday to Friday) at 08:30"},
		{name: "hourly", spec: "0 * * * *", want: "every hour, on the hour"},
		{name: "hourly at half past", spec: "30 * * * *", want: "every hour at 30 minutes past the hour"},
		{name: "every two hours", spec: "0 */2 * * *", want: "every 2 hours, on the hour"},
		{name: "every 15 minutes", spec: "*/15 * * * *", want: "every 15 minutes"},
		{name: "every minute", spec: "* * * * *", want: "every minute"},
		{name: "monthly", spec: "0 9 1 * *", want: "on the 1st of every month at 09:00"},
		{name: "twice a month", spec: "0 9 1,15 * *", want: "on the 1st and 15th of every month at 09:00"},
		{name: "the 22nd", spec: "0 9 22 * *", want: "on the 22nd of every month at 09:00"},
		{name: "two days", spec: "0 17 * * 1,4", want: "every Monday and Thursday at 17:00"},
		{name: "three days", spec: "0 12 * * 5,1,3", want: "every Monday, Wednesday and Friday at 12:00"},
		{name: "weekend, Sunday last", spec: "0 10 * * 0,6", want: "every Saturday and Sunday at 10:00"},
		{name: "twice a day", spec: "0 9,17 * * *", want: "every day at 09:00 and 17:00"},
		{name: "hourly on weekdays", spec: "0 * * * 1-5", want: "every hour, on the hour, on weekdays (Monday to Friday)"},
		{name: "quarter hours on Mondays", spec: "*/15 * * * 1", want: "every 15 minutes on Mondays"},
		{name: "descriptor", spec: "@daily", want: "every day at 00:00"},
		{name: "a month named", spec: "0 9 1 1 *", want: "on the cron schedule “0 9 1 1 *”"},
		{name: "day of month and weekday", spec: "0 9 1 * 1", want: "on the cron schedule “0 9 1 * 1”"},
		{name: "stepped range", spec: "0 9-17/2 * * *", want: "on the cron schedule “0 9-17/2 * * *”"},
		{name: "many minutes", spec: "0,30 9 * * *", want: "on the cron schedule “0,30 9 * * *”"},
		{name: "zero", spec: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (When{Spec: tt.spec}).Describe(); got != tt.want {
				t.Errorf("When{Spec: %q}.Describe(): got %q, want %q", tt.spec, got, tt.want)
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		want string
	}{
		{name: "first", n: 1, want: "1st"},
		{name: "second", n: 2, want: "2nd"},
		{name: "third", n: 3, want: "3rd"},
		{name: "fourth", n: 4, want: "4th"},
		{name: "eleventh", n: 11, want: "11th"},
		{name: "twelfth", n: 12, want: "12th"},
		{name: "thirteenth", n: 13, want: "13th"},
		{name: "twenty-first", n: 21, want: "21st"},
		{name: "twenty-third", n: 23, want: "23rd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ordinal(tt.n); got != tt.want {
				t.Errorf("ordinal(%d): got %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}
