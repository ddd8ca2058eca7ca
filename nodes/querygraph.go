package nodes

import "github.com/analyticsbot/analyticsbot/workflow"

// QueryGraph declares the run of a query a client wrote itself (the MCP
// server's run_query): the analytics graph from validate_query on, without
// the model. The query goes through the same guard, the asker's policy and
// role, the result cache and the reply as a generated one; a query the
// backend refuses is not rewritten but answered with the reason.
func QueryGraph(n *Nodes) *workflow.Graph[State] {
	return workflow.New[State]("given_query").
		AddNode(NodeValidateQuery, n.ValidateQuery, workflow.WithLabel("Checking the query…")).
		AddNode(NodeExecuteQuery, n.ExecuteQuery, workflow.WithLabel("Running the query…")).
		AddNode(NodeFormatAnswer, n.FormatAnswer, workflow.WithLabel("Formatting the answer…")).
		AddNode(NodeHandleError, n.HandleError, workflow.WithLabel("Explaining what went wrong…")).
		AddNode(NodeSaveTurn, n.SaveTurn, workflow.WithLabel("Saving the conversation…")).
		AddEdge(workflow.Start, NodeValidateQuery).
		AddBranch(NodeValidateQuery, onErrorOr(NodeExecuteQuery), NodeExecuteQuery, NodeHandleError).
		AddBranch(NodeExecuteQuery, onErrorOr(NodeFormatAnswer), NodeFormatAnswer, NodeHandleError).
		AddEdge(NodeFormatAnswer, NodeSaveTurn).
		AddEdge(NodeHandleError, NodeSaveTurn).
		AddEdge(NodeSaveTurn, workflow.End)
}
