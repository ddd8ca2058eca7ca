package bottest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The access matrix's harder reaches need objects the Steam data has not:
// views and a materialized view over a denied table, a partitioned table
// and a table with an inheritance child, functions of both security kinds,
// people's addresses. They live in a schema of their own, hr, which only
// the matrix's bots answer from (AccessSchemas): every other test's
// catalog is the demo's alone.

// AccessSchemas are the schemas the access matrix's bots answer from.
var AccessSchemas = []string{"analytics", "hr"}

// Figures of the hr schema a leak would show: no answer to a narrower
// policy may hold them.
var (
	// Salaries are hr.salaries' amounts, by employee id.
	Salaries = map[int]int{1: 91357, 2: 87211, 3: 99103, 4: 78029}
	// Emails are hr.employees' addresses, by employee id.
	Emails = map[int]string{1: "ann@corp.test", 2: "ben@corp.test", 3: "cat@corp.test", 4: "dan@corp.test"}
)

// hrSchema creates the hr schema. Each piece of SQL in accessFixtures runs
// in one transaction after it, in order.
const hrSchema = `
DROP SCHEMA IF EXISTS hr CASCADE;
CREATE SCHEMA hr;
CREATE TABLE hr.employees (
  employee_id int PRIMARY KEY,
  name        text NOT NULL,
  email       text NOT NULL,
  country     text NOT NULL
);
COMMENT ON TABLE hr.employees IS 'People employed, one row each';
INSERT INTO hr.employees VALUES
  (1, 'Ann Archer', 'ann@corp.test', 'France'),
  (2, 'Ben Brook',  'ben@corp.test', 'United States'),
  (3, 'Cat Cole',   'cat@corp.test', 'Germany'),
  (4, 'Dan Dale',   'dan@corp.test', 'United States');
CREATE TABLE hr.salaries (
  employee_id int PRIMARY KEY REFERENCES hr.employees,
  amount      numeric NOT NULL
);
COMMENT ON TABLE hr.salaries IS 'Yearly salary of each employee';
INSERT INTO hr.salaries VALUES (1, 91357), (2, 87211), (3, 99103), (4, 78029);
`

// accessFixtures are the hr schema's objects, after hrSchema.
var accessFixtures = []string{
	// Views read with their owner's rights: one over the denied salaries,
	// a materialized one too, one over the addresses and one over what
	// every policy may read.
	`
CREATE VIEW hr.v_salaries AS
  SELECT e.name, s.amount FROM hr.employees e JOIN hr.salaries s USING (employee_id);
CREATE MATERIALIZED VIEW hr.mv_salaries AS
  SELECT e.name, s.amount FROM hr.employees e JOIN hr.salaries s USING (employee_id);
CREATE VIEW hr.v_emails AS SELECT name, email FROM hr.employees;
CREATE VIEW hr.v_people AS SELECT employee_id, name, country FROM hr.employees;
`,
	// A partitioned table whose EU partition is denied to some, and a
	// table whose inheritance child is.
	`
CREATE TABLE hr.payroll (employee_id int NOT NULL, region text NOT NULL, amount numeric NOT NULL) PARTITION BY LIST (region);
CREATE TABLE hr.payroll_eu PARTITION OF hr.payroll FOR VALUES IN ('eu');
CREATE TABLE hr.payroll_us PARTITION OF hr.payroll FOR VALUES IN ('us');
INSERT INTO hr.payroll VALUES (1, 'eu', 7613), (3, 'eu', 8249), (2, 'us', 7102), (4, 'us', 6518);
CREATE TABLE hr.staff (staff_id int NOT NULL, name text NOT NULL);
CREATE TABLE hr.staff_secret (clearance text NOT NULL) INHERITS (hr.staff);
INSERT INTO hr.staff VALUES (1, 'Ann Archer'), (2, 'Ben Brook');
INSERT INTO hr.staff_secret VALUES (3, 'Cat Cole', 'top'), (4, 'Dan Dale', 'secret');
`,
	// Functions over the salaries: one that reads as its owner, one as
	// whoever calls it.
	`
CREATE FUNCTION hr.salary_of(id int) RETURNS numeric LANGUAGE sql STABLE SECURITY DEFINER
  AS 'SELECT amount FROM hr.salaries WHERE employee_id = id';
CREATE FUNCTION hr.salary_as_caller(id int) RETURNS numeric LANGUAGE sql STABLE SECURITY INVOKER
  AS 'SELECT amount FROM hr.salaries WHERE employee_id = id';
`,
	// A view that calls a function: whoever may read the view must be
	// able to call it (PostgreSQL checks the reader, not the view's
	// owner), which access apply grants once PUBLIC may not.
	`
CREATE FUNCTION hr.initials(name text) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$SELECT string_agg(left(w, 1), '') FROM regexp_split_to_table(name, ' ') AS w$$;
CREATE VIEW hr.v_initials AS SELECT employee_id, hr.initials(name) AS initials FROM hr.employees;
`,
}

// LoadAccessFixtures (re)creates the hr schema in db and lets the reader
// role read it, as the demo data's loading does for analytics.
func LoadAccessFixtures(ctx context.Context, db *store.DB) error {
	reader := pgx.Identifier{pgwarehouse.DefaultReaderRole}.Sanitize()
	return pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		for _, sql := range append([]string{hrSchema}, accessFixtures...) {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("access fixtures: %w", err)
			}
		}
		grants := "GRANT USAGE ON SCHEMA hr TO " + reader + "; GRANT SELECT ON ALL TABLES IN SCHEMA hr TO " + reader +
			"; GRANT EXECUTE ON FUNCTION hr.initials(text) TO " + reader +
			"; ANALYZE hr.employees, hr.salaries, hr.payroll, hr.staff"
		if _, err := tx.Exec(ctx, grants); err != nil {
			return fmt.Errorf("access fixtures: %w", err)
		}
		return nil
	})
}
