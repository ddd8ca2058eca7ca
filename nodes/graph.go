package nodes

import (
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Node names, as they appear in traces, logs and the drawing.
const (
	NodeRouteIntent    = "route_intent"
	NodeResolveContext = "resolve_context"
	NodeGenerateQuery  = "generate_query"
	NodeValidateQuery  = "validate_query"
	NodeExecuteQuery   = "execute_query"
	NodeInterpret      = "interpret"
	NodeFormatAnswer   = "format_answer"
	NodeAskBack        = "ask_back"
	NodeExportCSV      = string(IntentExportCSV)
	NodeShowSQL        = string(IntentShowSQL)
	NodeRefresh        = string(IntentRefresh)
	NodeSchedule       = string(IntentSchedule)
	NodeRunSchedule    = "run_schedule"
	NodeExplain        = string(IntentExplain)
	NodeRate           = string(IntentFeedback)
	NodeVerify         = "verify"
	NodeListSchedules  = string(IntentListSchedules)
	NodeManageSchedule = string(IntentManageSchedule)
	NodeDecline        = "decline"
	NodeHandleError    = "handle_error"
	NodeSaveTurn       = "save_turn"
)

// MostSQLRetries is the most regenerations SQL_MAX_RETRIES may ask for. A
// question's longest path must fit the workflow's step cap: beyond it, the
// run would stop without telling the asker why. That path is route and
// resolve, then generate, validate and execute for each attempt, every one
// but the last failing as it runs, then interpret, format and save: 5 + 3
// steps per attempt (23 at 5 retries). Every attempt failing is a step
// shorter (the error handler and save).
const MostSQLRetries = (workflow.DefaultMaxSteps-5)/3 - 1

// Graph declares the analytics workflow. It is the whole product's
// behaviour in one place: one line per node, one line per edge or branch.
func Graph(n *Nodes) *workflow.Graph[State] {
	writing, checking := "Writing the query…", "Checking the query…"
	if n.Warehouse != nil {
		d := n.Warehouse.Dialect()
		writing, checking = d.Writing, d.Checking
	}
	return workflow.New[State]("analytics").
		AddNode(NodeRouteIntent, n.RouteIntent, workflow.WithLabel("Reading your question…")).
		AddNode(NodeResolveContext, n.ResolveContext, workflow.WithLabel("Looking at the conversation…")).
		AddNode(NodeGenerateQuery, n.GenerateQuery, workflow.WithLabel(writing)).
		AddNode(NodeValidateQuery, n.ValidateQuery, workflow.WithLabel(checking)).
		AddNode(NodeExecuteQuery, n.ExecuteQuery, workflow.WithLabel("Running the query…")).
		AddNode(NodeInterpret, n.Interpret, workflow.WithLabel("Reading the results…")).
		AddNode(NodeFormatAnswer, n.FormatAnswer, workflow.WithLabel("Formatting the answer…")).
		AddNode(NodeAskBack, n.AskBack, workflow.WithLabel("Asking which you mean…")).
		AddNode(NodeExportCSV, n.ExportCSV, workflow.WithLabel("Preparing the CSV…")).
		AddNode(NodeShowSQL, n.ShowSQL, workflow.WithLabel("Finding the SQL…")).
		AddNode(NodeRefresh, n.Refresh, workflow.WithLabel("Running the query again…")).
		AddNode(NodeSchedule, n.Schedule, workflow.WithLabel("Reading the schedule…")).
		AddNode(NodeRunSchedule, n.RunSchedule, workflow.WithLabel("Running the scheduled query…")).
		AddNode(NodeExplain, n.Explain, workflow.WithLabel("Looking at how I answered…")).
		AddNode(NodeRate, n.Rate, workflow.WithLabel("Saving your feedback…")).
		AddNode(NodeVerify, n.Verify, workflow.WithLabel("Verifying the query…")).
		AddNode(NodeListSchedules, n.ListSchedules, workflow.WithLabel("Listing the schedules…")).
		AddNode(NodeManageSchedule, n.ManageSchedule, workflow.WithLabel("Changing the schedule…")).
		AddNode(NodeDecline, n.Decline, workflow.WithLabel("Answering…")).
		AddNode(NodeHandleError, n.HandleError, workflow.WithLabel("Explaining what went wrong…")).
		AddNode(NodeSaveTurn, n.SaveTurn, workflow.WithLabel("Saving the conversation…")).
		AddEdge(workflow.Start, NodeRouteIntent).
		AddBranch(NodeRouteIntent, afterRouting, NodeResolveContext, NodeExportCSV, NodeShowSQL, NodeRefresh,
			NodeSchedule, NodeRunSchedule, NodeExplain, NodeRate, NodeVerify, NodeListSchedules, NodeManageSchedule, NodeDecline, NodeValidateQuery, NodeHandleError).
		AddBranch(NodeResolveContext, onErrorOr(NodeGenerateQuery), NodeGenerateQuery, NodeHandleError).
		AddBranch(NodeGenerateQuery, afterGeneration, NodeValidateQuery, NodeAskBack, NodeHandleError).
		AddBranch(NodeValidateQuery, afterValidation(n.MaxRetries), NodeExecuteQuery, NodeGenerateQuery, NodeHandleError).
		AddBranch(NodeExecuteQuery, afterExecution(n.MaxRetries), NodeInterpret, NodeFormatAnswer, NodeGenerateQuery, NodeHandleError).
		AddEdge(NodeInterpret, NodeFormatAnswer).
		AddEdge(NodeFormatAnswer, NodeSaveTurn).
		AddEdge(NodeAskBack, NodeSaveTurn).
		AddBranch(NodeExportCSV, onErrorOr(NodeSaveTurn), NodeSaveTurn, NodeHandleError).
		AddBranch(NodeShowSQL, onErrorOr(NodeSaveTurn), NodeSaveTurn, NodeHandleError).
		AddBranch(NodeRefresh, onErrorOr(NodeFormatAnswer), NodeFormatAnswer, NodeHandleError).
		AddBranch(NodeSchedule, onErrorOr(NodeSaveTurn), NodeSaveTurn, NodeHandleError).
		AddBranch(NodeRunSchedule, afterScheduledRun, NodeFormatAnswer, NodeSaveTurn, NodeHandleError).
		AddBranch(NodeExplain, onErrorOr(NodeSaveTurn), NodeSaveTurn, NodeHandleError).
		AddEdge(NodeRate, workflow.End).
		AddEdge(NodeVerify, workflow.End).
		AddEdge(NodeListSchedules, workflow.End).
		AddEdge(NodeManageSchedule, workflow.End).
		AddEdge(NodeDecline, NodeSaveTurn).
		AddEdge(NodeHandleError, NodeSaveTurn).
		AddEdge(NodeSaveTurn, workflow.End)
}

// afterRouting sends each intent to its path; a message the router refused
// (empty, too long) goes straight to the error handler. The paths of
// ratings, Verify and schedules' lists and changes end without save_turn:
// they are answered beside the conversation (the table's Aside).
func afterRouting(s *State) string {
	if s.ErrorKind != "" {
		return NodeHandleError
	}
	switch s.Intent {
	case IntentExportCSV:
		return NodeExportCSV
	case IntentShowSQL:
		return NodeShowSQL
	case IntentRefresh:
		return NodeRefresh
	case IntentSchedule:
		return NodeSchedule
	case IntentScheduledRun:
		return NodeRunSchedule
	case IntentExplain:
		return NodeExplain
	case IntentFeedback:
		return NodeRate
	case IntentVerify:
		return NodeVerify
	case IntentListSchedules:
		return NodeListSchedules
	case IntentManageSchedule:
		return NodeManageSchedule
	case IntentOffTopic:
		return NodeDecline
	case IntentRunQuery:
		return NodeValidateQuery
	default:
		return NodeResolveContext
	}
}

// afterScheduledRun formats a run's answer, unless its alert's condition
// did not hold: then there is nothing to send.
func afterScheduledRun(s *State) string {
	switch {
	case s.ErrorKind != "":
		return NodeHandleError
	case s.Quiet:
		return NodeSaveTurn
	}
	return NodeFormatAnswer
}

// afterGeneration checks the generated query, or asks the generator's
// question back when it asked one instead.
func afterGeneration(s *State) string {
	switch {
	case s.ErrorKind != "":
		return NodeHandleError
	case s.Clarification != nil:
		return NodeAskBack
	}
	return NodeValidateQuery
}

// onErrorOr continues to next unless the node recorded an error.
func onErrorOr(next string) workflow.RouteFunc[State] {
	return func(s *State) string {
		if s.ErrorKind != "" {
			return NodeHandleError
		}
		return next
	}
}

// afterValidation runs a valid query, sends a fixable one back to the
// generator while retries last, and gives up otherwise; a query the asker
// wrote (run_query) is never rewritten.
func afterValidation(maxRetries int) workflow.RouteFunc[State] {
	return func(s *State) string {
		switch {
		case s.Valid:
			return NodeExecuteQuery
		case s.ErrorKind == ErrInvalidQuery && s.RetryCount < maxRetries && s.Intent != IntentRunQuery:
			return NodeGenerateQuery
		default:
			return NodeHandleError
		}
	}
}

// afterExecution retries a query the backend rejected as it ran (a bad
// cast, a division by zero) like one the validator rejected; the result of
// a query the asker wrote (run_query) is formatted without the model.
func afterExecution(maxRetries int) workflow.RouteFunc[State] {
	return func(s *State) string {
		switch {
		case s.ErrorKind == "" && s.Intent == IntentRunQuery:
			return NodeFormatAnswer
		case s.ErrorKind == "":
			return NodeInterpret
		case s.ErrorKind == ErrInvalidQuery && s.RetryCount < maxRetries && s.Intent != IntentRunQuery:
			return NodeGenerateQuery
		default:
			return NodeHandleError
		}
	}
}
