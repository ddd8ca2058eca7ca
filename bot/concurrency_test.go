package bot_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// gamesPerYear are releases per year in the demo data (Steam, to May 2019).
var gamesPerYear = map[int]int64{
	2009: 305, 2010: 238, 2011: 239, 2012: 320, 2013: 418,
	2014: 1555, 2015: 2597, 2016: 4361, 2017: games2017, 2018: games2018,
}

// threadRun is what one thread of the concurrency test saw.
type threadRun struct {
	year                 int
	thread               string
	answer, export, csv  *nodes.State
	askErr, exportErr    error
	pressErr, foreignErr error
	foreign              *nodes.State
}

// testConcurrentThreads has ten threads talk to one bot at once: each must
// get its own answer and its own export, never another thread's.
func testConcurrentThreads(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	runs := make([]*threadRun, 0, len(gamesPerYear))
	for year := range gamesPerYear {
		runs = append(runs, &threadRun{year: year, thread: bot.NewThreadID()})
	}

	// Phase 1: every thread asks, exports by phrase and by button at once.
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			msg := bot.Message{ThreadID: r.thread, UserID: "U" + strconv.Itoa(r.year)}
			msg.Text = fmt.Sprintf("How many games were released in %d?", r.year)
			r.answer, _, r.askErr = b.AskState(ctx, msg)
			if r.askErr != nil || r.answer.QueryID == "" {
				return
			}
			msg.Text = "export as csv"
			r.export, _, r.exportErr = b.AskState(ctx, msg)
			msg.Text = ""
			r.csv, _, r.pressErr = b.PressState(ctx, msg, string(nodes.IntentExportCSV), r.answer.QueryID)
		})
	}
	wg.Wait()

	// Phase 2: every thread presses the next thread's button at once.
	for i, r := range runs {
		next := runs[(i+1)%len(runs)]
		if next.answer == nil || next.answer.QueryID == "" {
			continue
		}
		wg.Go(func() {
			r.foreign, _, r.foreignErr = b.PressState(ctx, bot.Message{ThreadID: r.thread}, string(nodes.IntentExportCSV), next.answer.QueryID)
		})
	}
	wg.Wait()

	for _, r := range runs {
		t.Run(strconv.Itoa(r.year), func(t *testing.T) {
			want := gamesPerYear[r.year]
			wantCSV := "games\n" + strconv.FormatInt(want, 10) + "\n"
			require.NoError(t, r.askErr, "ask")
			require.Empty(t, r.answer.ErrorKind, "answer: %s", r.answer.ErrorDetail)
			assert.Equal(t, [][]any{{want}}, r.answer.Result.Rows, "rows")
			assert.Contains(t, r.answer.Answer, strconv.FormatInt(want, 10), "answer")

			require.NoError(t, r.exportErr, "export by phrase")
			assert.Equal(t, wantCSV, string(r.export.CSVContent), "csv by phrase")
			require.NoError(t, r.pressErr, "export by button")
			assert.Equal(t, wantCSV, string(r.csv.CSVContent), "csv by button")

			require.NoError(t, r.foreignErr, "press another thread's button")
			require.NotNil(t, r.foreign, "press another thread's button")
			assert.Equal(t, nodes.ErrNoPreviousQuery, r.foreign.ErrorKind, "another thread's query id")
			assert.Empty(t, r.foreign.CSVContent, "another thread's csv")

			turns := recentTurns(t, e, r.thread)
			require.Len(t, turns, 4, "saved turns")
			assert.Equal(t, fmt.Sprintf("How many games were released in %d?", r.year), turns[0].UserMessage, "first turn")
		})
	}
	assert.Equal(t, 3*len(runs), len(b.Scripted.Calls()), "model calls: three per question, none for exports")
}
