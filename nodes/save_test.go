package nodes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
)

func TestSaveTurn(t *testing.T) {
	t.Parallel()
	qid := pgID(valveSQL)
	tests := []struct {
		name      string
		state     State
		wantSaved bool
		want      store.Turn // the fields SaveTurn decides
	}{
		{
			name: "a question keeps its SQL and query id",
			state: State{UserQuery: valveQuestion, Intent: IntentAnalytics, Query: pgQuery(valveSQL), QueryID: qid,
				Answer: "Counter-Strike came out in *2000*.", ResponseText: "Counter-Strike came out in *2000*."},
			wantSaved: true,
			want: store.Turn{UserMessage: valveQuestion, BotResponse: "Counter-Strike came out in *2000*.",
				Intent: string(IntentAnalytics), Query: pgQuery(valveSQL), QueryID: qid},
		},
		{
			name: "a follow-up keeps its SQL",
			state: State{UserQuery: "and the third one?", Intent: IntentFollowUp, Query: pgQuery(valveSQL), QueryID: qid,
				Answer: "Here are the *2* rows."},
			wantSaved: true,
			want: store.Turn{UserMessage: "and the third one?", BotResponse: "Here are the *2* rows.",
				Intent: string(IntentFollowUp), Query: pgQuery(valveSQL), QueryID: qid},
		},
		{
			name: "an export saves no SQL",
			state: State{UserQuery: "[button] export_csv " + qid, Intent: IntentExportCSV, ReferencedQueryID: qid,
				Query: pgQuery(valveSQL), QueryID: qid, ResponseText: "Here is the CSV of “" + valveQuestion + "”: 2 rows."},
			wantSaved: true,
			want: store.Turn{UserMessage: "[button] export_csv " + qid,
				BotResponse: "Here is the CSV of “" + valveQuestion + "”: 2 rows.", Intent: string(IntentExportCSV)},
		},
		{
			name: "show SQL saves no SQL",
			state: State{UserQuery: "show sql", Intent: IntentShowSQL, Query: pgQuery(valveSQL), QueryID: qid,
				ResponseText: "SQL for: " + valveQuestion},
			wantSaved: true,
			want:      store.Turn{UserMessage: "show sql", BotResponse: "SQL for: " + valveQuestion, Intent: string(IntentShowSQL)},
		},
		{
			name: "a failed question saves no SQL",
			state: State{UserQuery: "How many gmes?", Intent: IntentAnalytics, Query: pgQuery("SELECT nme FROM analytics.apps"),
				ErrorKind: ErrInvalidQuery, ResponseText: "I couldn't write a query that works for this question."},
			wantSaved: true,
			want: store.Turn{UserMessage: "How many gmes?", BotResponse: "I couldn't write a query that works for this question.",
				Intent: string(IntentAnalytics)},
		},
		{
			name:      "a declined message",
			state:     State{UserQuery: "tell me a joke", Intent: IntentOffTopic, ResponseText: "I can only answer questions about Steam games."},
			wantSaved: true,
			want: store.Turn{UserMessage: "tell me a joke", BotResponse: "I can only answer questions about Steam games.",
				Intent: string(IntentOffTopic)},
		},
		{
			name:  "an empty message saves nothing",
			state: State{UserQuery: "   ", ErrorKind: ErrEmptyMessage, ResponseText: "Ask me a question about Steam games"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n, _ := newNodes(t, nil)
			s := tt.state
			s.ThreadTS, s.UserID, s.ChannelID = threadID(t), "U42", "C7"
			require.NoError(t, n.SaveTurn(ctx, &s))
			assert.Empty(t, s.Notes, "notes")

			if !tt.wantSaved {
				assert.Empty(t, s.Keep, "kept turns")
				return
			}
			require.Len(t, s.Keep, 1, "kept turns")
			got := s.Keep[0]
			assert.Equal(t, s.ThreadTS, got.ThreadID, "thread")
			assert.Equal(t, "U42", got.UserID, "user")
			assert.Equal(t, "C7", got.ChannelID, "channel")
			assert.Equal(t, tt.want.UserMessage, got.UserMessage, "user message")
			assert.Equal(t, tt.want.BotResponse, got.BotResponse, "bot response")
			assert.Equal(t, tt.want.Intent, got.Intent, "intent")
			assert.Equal(t, tt.want.Query.Text, got.Query.Text, "SQL")
			assert.Equal(t, tt.want.QueryID, got.QueryID, "query id")
		})
	}
}
