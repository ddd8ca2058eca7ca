package sqlguard

import "fmt"

// Class is a machine-readable reason for rejecting a statement. Its string
// value appears in the CLI's JSON output.
type Class string

// The rejection classes. The comment after each says what it covers.
const (
	ClassEmpty          Class = "empty"                // nothing but whitespace or comments
	ClassTooLong        Class = "too_long"             // longer than Policy.MaxLength bytes
	ClassTooDeep        Class = "too_deep"             // parse tree deeper than Policy.MaxDepth
	ClassSyntax         Class = "syntax_error"         // PostgreSQL's parser rejects it
	ClassStacked        Class = "stacked_statements"   // more than one statement
	ClassWrite          Class = "write"                // INSERT, UPDATE, DELETE, MERGE
	ClassDDL            Class = "ddl"                  // CREATE, ALTER, DROP, TRUNCATE, COMMENT, …
	ClassMaintenance    Class = "maintenance"          // VACUUM, ANALYZE, REINDEX, CLUSTER, REFRESH, CHECKPOINT, LOAD
	ClassWritingCTE     Class = "data_modifying_cte"   // WITH x AS (INSERT/UPDATE/DELETE …)
	ClassSelectInto     Class = "select_into"          // SELECT INTO, CREATE TABLE/MATERIALIZED VIEW AS
	ClassExplain        Class = "explain"              // EXPLAIN (ANALYZE would execute the statement)
	ClassSession        Class = "session_change"       // SET, RESET, SHOW, transactions, cursors, DISCARD, LISTEN, NOTIFY
	ClassSettings       Class = "setting_change"       // set_config(), ALTER SYSTEM, ALTER DATABASE … SET
	ClassPrivilege      Class = "privilege_change"     // GRANT, REVOKE, roles, SET ROLE, SET SESSION AUTHORIZATION
	ClassSleep          Class = "sleep"                // pg_sleep and friends
	ClassUnbounded      Class = "unbounded_work"       // unbounded recursion or generate_series
	ClassFileAccess     Class = "file_access"          // server files: pg_read_file, pg_ls_dir, lo_import, …
	ClassCopy           Class = "copy"                 // COPY
	ClassLargeObject    Class = "large_object"         // lo_* functions, pg_largeobject
	ClassCodeExecution  Class = "code_execution"       // DO, PREPARE, EXECUTE, CALL, CREATE FUNCTION/TRIGGER/RULE
	ClassDynamicSQL     Class = "dynamic_sql"          // functions that run SQL given as text: query_to_xml, ts_stat, …
	ClassForeignData    Class = "foreign_data"         // dblink, foreign-data wrappers, IMPORT FOREIGN SCHEMA
	ClassSideEffect     Class = "side_effect"          // nextval, pg_notify, advisory locks, pg_terminate_backend, …
	ClassLocking        Class = "locking_clause"       // FOR UPDATE/SHARE, LOCK
	ClassCatalog        Class = "system_catalog"       // pg_catalog, information_schema, pg_* relations, reg* casts
	ClassRelation       Class = "relation_not_allowed" // relations outside Policy.Schemas/Tables, cross-database names
	ClassFunction       Class = "function_not_allowed" // functions not on the allowlist
	ClassNameResolution Class = "name_resolution"      // schema-qualified functions, types and OPERATOR(schema.op)
	ClassAccess         Class = "access_denied"        // tables and columns outside the caller's access policy (Policy.Forbidden, DeniedColumns)
	ClassColumns        Class = "columns_not_allowed"  // *, NATURAL JOIN or a whole row over a table with denied columns
)

// Unsafe reports whether c marks an attack or an attempt to change state:
// such a statement must not be regenerated and retried. The other classes
// (empty, too_long, too_deep, syntax_error, explain, unbounded_work,
// system_catalog, relation_not_allowed, function_not_allowed,
// columns_not_allowed) are mistakes a
// SQL generator can fix from the Rejection's Reason.
func (c Class) Unsafe() bool {
	switch c {
	case ClassEmpty, ClassTooLong, ClassTooDeep, ClassSyntax, ClassExplain,
		ClassUnbounded, ClassCatalog, ClassRelation, ClassFunction, ClassColumns:
		return false
	}
	return true
}

// Rejection is the error returned for a statement that may not run. Reason
// is one sentence written for the SQL generator to act on.
type Rejection struct {
	Class  Class
	Reason string
}

func (r *Rejection) Error() string { return fmt.Sprintf("%s: %s", r.Class, r.Reason) }

func reject(c Class, format string, args ...any) *Rejection {
	return &Rejection{Class: c, Reason: fmt.Sprintf(format, args...)}
}
