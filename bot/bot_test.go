package bot_test

import "testing"

// TestBot runs the end-to-end tests against one database with the demo data
// loaded once (~2 s), instead of once per test. Each group builds its own
// bots with their own scripted model, and runs in parallel with the others.
func TestBot(t *testing.T) {
	e := newEnv(t)
	groups := []struct {
		name string
		run  func(*testing.T, *testEnv)
	}{
		{"NewQuestion", testNewQuestion},
		{"FollowUp", testFollowUp},
		{"HistoryTurns", testHistoryTurns},
		{"AnswerGolden", testAnswerGolden},
		{"ActionsWithoutModel", testActionsWithoutModel},
		{"ShowSQLByKeyword", testShowSQLByKeyword},
		{"CommandWordsInQuestions", testCommandWordsInQuestions},
		{"ExportDirectory", testExportDirectory},
		{"PressBadInput", testPressBadInput},
		{"PressOtherThreadsQuery", testPressOtherThreadsQuery},
		{"OffTopic", testOffTopic},
		{"InvalidSQL", testInvalidSQL},
		{"RetriesAtTheBound", testRetriesAtTheBound},
		{"UnsafeSQL", testUnsafeSQL},
		{"BadMessages", testBadMessages},
		{"ModelFailures", testModelFailures},
		{"MissingGrant", testMissingGrant},
		{"RowScoping", testRowScoping},
		{"AccessPolicies", testAccessPolicies},
		{"AccessPoliciesAlone", testAccessPoliciesAlone},
		{"AccessViews", testAccessViews},
		{"AccessUnknown", testAccessUnknown},
		{"GlossaryAccess", testGlossaryAccess},
		{"ScheduleStopsAfterFailures", testScheduleStopsAfterFailures},
		{"SchedulesOff", testSchedulesOff},
		{"ErrorTextsHoldNoData", testErrorTextsHoldNoData},
		{"MaskedValuesNotShown", testMaskedValuesNotShown},
		{"MaskedValuesNotInExamples", testMaskedValuesNotInExamples},
		{"PolicyRoles", testPolicyRoles},
		{"ChannelCeiling", testChannelCeiling},
		{"CeilingRoles", testCeilingRoles},
		{"ExportAfterPolicyChange", testExportAfterPolicyChange},
		{"ExportAfterMask", testExportAfterMask},
		{"ScheduledRunRows", testScheduledRunRows},
		{"DatabaseDown", testDatabaseDown},
		{"SilentDatabase", testSilentDatabase},
		{"ConcurrentThreads", testConcurrentThreads},
		{"MissingSchema", testMissingSchema},
		{"ResultFreshness", testResultFreshness},
		{"ScheduleWords", testScheduleWords},
		{"TurnRecords", testTurnRecords},
		{"Readiness", testReadiness},
		{"ReadinessBounds", testReadinessBounds},
		{"ThreadOwners", testThreadOwners},
		{"StartedThread", testStartedThread},
		{"Reply", testReply},
		{"ReplyAccess", testReplyAccess},
		{"WordNetAtStart", testWordNetAtStart},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, e)
		})
	}
}
