// Package sqlguard decides, without touching a database, whether a
// model-written SQL statement may run, and caps the rows it returns. It
// parses the text with PostgreSQL's own parser (pg_query) and accepts a
// single read-only SELECT over the allowed schemas that calls only
// allowlisted functions, so comments, quoting, dollar quotes, U&"…" escapes
// and case games change nothing: the checks run on the parse tree.
//
// # What is checked
//
// The statement must be non-empty, at most Policy.MaxLength bytes, valid
// UTF-8 without NUL bytes, and exactly one statement. Anything but SELECT is
// rejected by parse-node type with its own Class (write, ddl, maintenance,
// session_change, privilege_change, code_execution, copy, …); EXPLAIN of an
// attack reports the attack. A SELECT is walked completely — CTEs,
// subqueries in any clause, LATERAL items, function arguments, set-operation
// arms, VALUES — for SELECT INTO, FOR UPDATE/SHARE, data-modifying CTEs,
// function calls, operators, casts and relations. The parse tree may be at
// most Policy.MaxDepth levels deep (DefaultMaxDepth is 8× the deepest query
// of the TPC-H, TPC-DS and defog corpora).
//
// When a statement breaks several rules, an unsafe class (Class.Unsafe: an
// attack, never retried) wins over too_deep, which wins over the fixable
// classes; among equals the first found in the tree is reported.
//
// # Allowlists
//
// Functions are allowed by name from a built-in allowlist (AllowedFunctions:
// aggregates including ordered-set ones, window, math, string, regexp,
// date/time, formatting, array, JSON, range, full-text search, bounded
// generate_series) plus Policy.Functions. A denylist only sharpens the
// report: pg_sleep, set_config, pg_read_file, lo_*, query_to_xml, dblink,
// nextval, advisory locks and the like get their own unsafe class even when
// schema-qualified, and Policy.Functions cannot allow them. Any other
// function is function_not_allowed. Names compare as PostgreSQL folds them,
// so "PG_SLEEP" (quoted) is a different, unknown function.
//
// Schema-qualified functions, OPERATOR(schema.op) and types qualified with a
// schema other than pg_catalog or an allowed one are name_resolution: a
// model never needs them and they pick objects outside normal resolution.
// The grammar's own pg_catalog names (EXTRACT, SUBSTRING … FROM, AT TIME
// ZONE, LIKE … ESCAPE, CAST(x AS int)) are told apart from written ones.
// Casts to reg* types (regclass, regproc, regrole, …) read the catalogs and
// are system_catalog; the xml type and XML functions are not allowed.
//
// Relations resolve like PostgreSQL: a CTE in scope (with WITH's scoping
// rules), then pg_catalog — so an unqualified pg_* name is a catalog — then
// the search path. pg_catalog, information_schema and pg_* schemas are
// system_catalog unless Policy.AllowCatalog; other schemas outside
// Policy.Schemas, names missing from Policy.Tables and cross-database names
// are relation_not_allowed; pg_largeobject is large_object.
//
// # Heuristics for unbounded work
//
//   - generate_series needs constant bounds: numbers, date/timestamp
//     literals, or times relative to now (now(), current_date, date_trunc
//     of them, ± constant intervals or days). It may yield at most 100,000
//     rows and a time series may span at most 100 years. A time series
//     whose bounds come from data (min(date) … max(date), filling the gaps
//     of a monthly report) is accepted when its step is a constant of a day
//     or more, counted as a century's worth of rows; data spanning more, or
//     holding 'infinity', is left to the statement timeout and the row cap.
//     Numeric series with bounds from data are rejected.
//   - Series multiply when several appear in one FROM list (cross join) or
//     one is in the select list over another in FROM; the product must stay
//     within 100,000 rows. Tables are not counted.
//   - A recursive CTE needs a bound: a top-level AND condition in its
//     recursive term's WHERE or JOIN … ON comparing a CTE column expression
//     with a constant (n < 10, depth <= 5, d < current_date), or an owning
//     query "SELECT cols FROM cte LIMIT k" with nothing that reads all rows
//     first (ORDER BY, GROUP BY, DISTINCT, WHERE, aggregates, subqueries).
//     Hierarchy walks that stop at the end of the data need a depth column.
//
// # What the database layer must cover
//
// A static check cannot see data or definitions, so the connection that
// runs these statements must still be a read-only role in a read-only
// transaction with statement_timeout and work_mem set (and temp_file_limit,
// which only a superuser may set: pgwarehouse sets it when it can),
// without EXECUTE on untrusted functions and with a fixed search_path. That
// covers cost (a cross join of real tables, repeat('x', 1e9)), functions or
// operators an extension or owner added under an allowlisted name,
// attribute-notation calls (t.f meaning f(t)), foreign tables inside an
// allowed schema, and views whose definitions call anything.
package sqlguard
