package sqlguard

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// statementRejection classifies a top-level statement other than SELECT and
// EXPLAIN by its parse-node type, so no spelling of a keyword matters.
func statementRejection(stmt *pg_query.Node) *Rejection {
	switch n := stmt.GetNode().(type) {
	case *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt:
		return reject(ClassWrite, "only SELECT may run; this statement changes data")
	case *pg_query.Node_CreateTableAsStmt:
		return reject(ClassSelectInto, "CREATE … AS stores a result; write the SELECT alone")
	case *pg_query.Node_VacuumStmt, *pg_query.Node_ReindexStmt, *pg_query.Node_ClusterStmt,
		*pg_query.Node_RefreshMatViewStmt, *pg_query.Node_CheckPointStmt, *pg_query.Node_LoadStmt:
		return reject(ClassMaintenance, "maintenance commands may not run; write one SELECT")
	case *pg_query.Node_VariableSetStmt:
		if name := strings.ToLower(n.VariableSetStmt.GetName()); name == "role" || name == "session_authorization" {
			return reject(ClassPrivilege, "changing the role may not run; write one SELECT")
		}
		return reject(ClassSession, "SET and RESET may not run; write one SELECT")
	case *pg_query.Node_VariableShowStmt, *pg_query.Node_TransactionStmt, *pg_query.Node_DiscardStmt,
		*pg_query.Node_ListenStmt, *pg_query.Node_UnlistenStmt, *pg_query.Node_NotifyStmt,
		*pg_query.Node_ConstraintsSetStmt, *pg_query.Node_DeclareCursorStmt, *pg_query.Node_FetchStmt,
		*pg_query.Node_ClosePortalStmt:
		return reject(ClassSession, "session and transaction commands may not run; write one SELECT")
	case *pg_query.Node_AlterSystemStmt, *pg_query.Node_AlterDatabaseSetStmt:
		return reject(ClassSettings, "server settings may not change; write one SELECT")
	case *pg_query.Node_GrantStmt, *pg_query.Node_GrantRoleStmt, *pg_query.Node_CreateRoleStmt,
		*pg_query.Node_AlterRoleStmt, *pg_query.Node_AlterRoleSetStmt, *pg_query.Node_DropRoleStmt,
		*pg_query.Node_AlterDefaultPrivilegesStmt, *pg_query.Node_ReassignOwnedStmt, *pg_query.Node_DropOwnedStmt:
		return reject(ClassPrivilege, "roles and privileges may not change; write one SELECT")
	case *pg_query.Node_DoStmt, *pg_query.Node_PrepareStmt, *pg_query.Node_ExecuteStmt,
		*pg_query.Node_DeallocateStmt, *pg_query.Node_CallStmt, *pg_query.Node_CreateFunctionStmt,
		*pg_query.Node_CreateTrigStmt, *pg_query.Node_RuleStmt, *pg_query.Node_CreateEventTrigStmt,
		*pg_query.Node_CreatePlangStmt:
		return reject(ClassCodeExecution, "procedural code may not run; write one SELECT")
	case *pg_query.Node_CopyStmt:
		return reject(ClassCopy, "COPY may not run; write a SELECT and the rows are returned")
	case *pg_query.Node_LockStmt:
		return reject(ClassLocking, "LOCK may not run; write one SELECT")
	case *pg_query.Node_CreateFdwStmt, *pg_query.Node_AlterFdwStmt, *pg_query.Node_CreateForeignServerStmt,
		*pg_query.Node_AlterForeignServerStmt, *pg_query.Node_CreateForeignTableStmt,
		*pg_query.Node_CreateUserMappingStmt, *pg_query.Node_AlterUserMappingStmt,
		*pg_query.Node_DropUserMappingStmt, *pg_query.Node_ImportForeignSchemaStmt:
		return reject(ClassForeignData, "foreign data wrappers may not be used; write one SELECT")
	}
	// Everything else that parses as a statement creates, alters or drops
	// an object (CREATE, ALTER, DROP, TRUNCATE, COMMENT, SECURITY LABEL, …).
	return reject(ClassDDL, "only SELECT may run; do not create, alter or drop objects")
}
