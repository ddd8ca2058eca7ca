package bottest

import (
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/nodes"
)

// The access matrix every surface's tests run: three policies over the
// demo schema, and questions whose scripted SQL reaches in different ways
// for what a policy may not read.

// AccessPolicies are the matrix's policies, broadest first: everything;
// all but developers, prices, salaries, the EU payroll and the secret
// staff (and so the views over the salaries and the addresses, the
// payroll and the staff as a whole), addresses masked; three Steam tables
// without prices, titles masked, the employees without their addresses
// and the view of them by name.
var AccessPolicies = [3]string{"full", "analysts", "everyone"}

// AccessUsers are Slack users of each policy, in AccessPolicies' order.
var AccessUsers = [3]string{"UADMIN", "UANA", "UZED"}

// AccessFile is the matrix's access file: its users in the channel CDATA
// (and the web chat, channel web) under their policies, everyone else
// under def (one of AccessPolicies). Its bots answer from AccessSchemas.
func AccessFile(def string) string {
	return `
access:
  channels: [CDATA, web]
  direct_messages: false
groups:
  analysts: [UANA]
policies:
  - name: full
    users: [UADMIN]
    tables: ["analytics.*", "hr.*"]
  - name: analysts
    groups: [analysts]
    tables: ["analytics.*", "hr.*"]
    deny_tables: ["analytics.developers", "hr.salaries", "hr.payroll_eu", "hr.staff_secret"]
    deny_columns: ["analytics.apps.price"]
    mask_columns: ["hr.employees.email"]
  - name: everyone
    tables: ["analytics.apps", "analytics.genres", "analytics.app_genres", "hr.employees", "hr.v_people"]
    deny_columns: ["analytics.apps.price", "hr.employees.email"]
    mask_columns: ["analytics.apps.name"]
default: ` + def + "\n"
}

// AccessCase is a question of the matrix ("case 1", "case 2", …) and
// what a user of each policy gets: "" an answer, else the error kind. Want
// is with the guard, as the bot runs; Alone with the guard taken out
// (StartWithoutGuard), the database alone holding the policy as its role.
type AccessCase struct {
	Name, SQL string
	Want      [3]nodes.ErrorKind
	Alone     [3]nodes.ErrorKind
}

// Question is the case's question.
func (c AccessCase) Question(i int) string { return "case " + strconv.Itoa(i+1) }

var (
	answered = [3]nodes.ErrorKind{}
	// fullOnly: the full policy is answered, the two narrower are refused
	// as outside their policy.
	fullOnly = [3]nodes.ErrorKind{"", nodes.ErrAccessDenied, nodes.ErrAccessDenied}
	// fails: no policy gets an answer, each query rewritten and failed.
	fails = [3]nodes.ErrorKind{nodes.ErrInvalidQuery, nodes.ErrInvalidQuery, nodes.ErrInvalidQuery}
	// failsOrDenied: as fails, but the narrowest may not read the column.
	failsOrDenied = [3]nodes.ErrorKind{nodes.ErrInvalidQuery, nodes.ErrInvalidQuery, nodes.ErrAccessDenied}
)

// AccessCases are the matrix's questions.
var AccessCases = []AccessCase{
	{"allowed table", "SELECT count(*) AS games FROM analytics.apps", answered, answered},
	{"forbidden table", "SELECT count(*) AS developers FROM analytics.developers", fullOnly, fullOnly},
	{"forbidden column", "SELECT round(avg(price), 2) AS avg_price FROM analytics.apps", fullOnly, fullOnly},
	// The guard asks for the columns by name; PostgreSQL refuses * over a
	// column the role has no grant on.
	{"select star", "SELECT * FROM analytics.apps ORDER BY app_id LIMIT 3",
		[3]nodes.ErrorKind{"", nodes.ErrInvalidQuery, nodes.ErrInvalidQuery}, fullOnly},
	{"join through a forbidden table",
		"SELECT a.name FROM analytics.apps a JOIN analytics.app_developers ad ON ad.app_id = a.app_id JOIN analytics.developers d ON d.developer_id = ad.developer_id ORDER BY 1 LIMIT 3",
		fullOnly, fullOnly},
	{"subquery through a forbidden table",
		"SELECT count(*) AS games FROM analytics.apps WHERE app_id IN (SELECT ad.app_id FROM analytics.app_developers ad WHERE ad.developer_id IN (SELECT developer_id FROM analytics.developers))",
		fullOnly, fullOnly},
	// PostgreSQL cannot grant a column for WHERE and GROUP BY but not for
	// the select list: masking is the guard's alone (docs/access.md).
	{"masked column returned", "SELECT name FROM analytics.apps ORDER BY app_id LIMIT 3",
		[3]nodes.ErrorKind{"", "", nodes.ErrInvalidQuery}, answered},
	{"masked column counted", "SELECT count(DISTINCT name) AS titles FROM analytics.apps", answered, answered},
	{"masked column filtered", "SELECT count(*) AS games FROM analytics.apps WHERE name ILIKE '%portal%'", answered, answered},
	// The names in the catalog are PUBLIC's to read (docs/security.md):
	// the guard refuses the cast, the database answers it.
	{"a cast that reads the catalog", "SELECT 'analytics.developers'::regclass::text AS t",
		[3]nodes.ErrorKind{nodes.ErrInvalidQuery, nodes.ErrInvalidQuery, nodes.ErrInvalidQuery}, answered},
	{"a function that runs other SQL", "SELECT query_to_xml('SELECT count(*) FROM analytics.developers', true, true, '') AS x",
		[3]nodes.ErrorKind{nodes.ErrUnsafeQuery, nodes.ErrUnsafeQuery, nodes.ErrUnsafeQuery}, fullOnly},
	// Views read with their owner's rights: one over what a policy denies
	// or masks is refused with it (docs/access.md), by both layers.
	{"a view over a denied table", "SELECT name, amount FROM hr.v_salaries ORDER BY name", fullOnly, fullOnly},
	{"a materialized view over a denied table", "SELECT name, amount FROM hr.mv_salaries ORDER BY name", fullOnly, fullOnly},
	{"a view returning a masked column", "SELECT name, email FROM hr.v_emails ORDER BY name", fullOnly, fullOnly},
	{"a view over what the policy allows", "SELECT name, country FROM hr.v_people ORDER BY name", answered, answered},
	// Reading a parent reads its partitions' and children's rows. The
	// guard reads a partition only through its parent (the model is not
	// shown partitions): naming one it allows is a mistake to fix.
	{"the parent of a denied partition", "SELECT region, sum(amount) AS total FROM hr.payroll GROUP BY region ORDER BY region", fullOnly, fullOnly},
	{"a denied partition", "SELECT sum(amount) AS total FROM hr.payroll_eu",
		[3]nodes.ErrorKind{nodes.ErrInvalidQuery, nodes.ErrAccessDenied, nodes.ErrAccessDenied}, fullOnly},
	{"an allowed partition", "SELECT sum(amount) AS total FROM hr.payroll_us",
		[3]nodes.ErrorKind{nodes.ErrInvalidQuery, nodes.ErrInvalidQuery, nodes.ErrAccessDenied},
		[3]nodes.ErrorKind{"", "", nodes.ErrAccessDenied}},
	{"the parent of a denied inheritance child", "SELECT count(*) AS staff FROM hr.staff", fullOnly, fullOnly},
	// A cast over a masked column fails on its values, and PostgreSQL's
	// error quotes the value it failed on. The guard refuses it where the
	// column is masked (analysts: the addresses; everyone: the titles) or
	// denied; the database raises it for the rest, and for every policy
	// without the guard, retried and failed. No error text holds a value
	// (MaskedErrorCases, bot/access_masked_test.go).
	{"a cast over a masked column", "SELECT count(*) AS n FROM hr.employees WHERE CAST(email AS int) > 0",
		failsOrDenied, failsOrDenied},
	{"a JSON cast over a masked column", "SELECT count(*) AS n FROM hr.employees WHERE email::jsonb ? 'x'",
		failsOrDenied, failsOrDenied},
	{"a cast over masked titles", "SELECT count(*) AS n FROM analytics.apps WHERE CAST(name AS int) > 0",
		fails, fails},
	{"a catalog cast over a masked column", "SELECT count(*) AS n FROM hr.employees WHERE email::regclass IS NOT NULL",
		failsOrDenied, [3]nodes.ErrorKind{nodes.ErrInternal, nodes.ErrInternal, nodes.ErrAccessDenied}},
	// Functions of the analytics schemas: the guard refuses a qualified
	// call; access apply takes EXECUTE from PUBLIC, and grants a role only
	// what the views and row-level security policies it reads call, so the
	// database refuses every policy both (the full one included: no view
	// of its calls them), and still answers through a view that calls one.
	{"a definer function over a forbidden table", "SELECT hr.salary_of(3) AS pay", unsafeAll, deniedAll},
	{"an invoker function over a forbidden table", "SELECT hr.salary_as_caller(3) AS pay", unsafeAll, deniedAll},
	{"a view that calls a function", "SELECT employee_id, initials FROM hr.v_initials ORDER BY employee_id",
		[3]nodes.ErrorKind{"", "", nodes.ErrAccessDenied}, [3]nodes.ErrorKind{"", "", nodes.ErrAccessDenied}},
}

var (
	// unsafeAll: the guard refuses every policy as unsafe, never retried.
	unsafeAll = [3]nodes.ErrorKind{nodes.ErrUnsafeQuery, nodes.ErrUnsafeQuery, nodes.ErrUnsafeQuery}
	// deniedAll: every policy is refused as outside it.
	deniedAll = [3]nodes.ErrorKind{nodes.ErrAccessDenied, nodes.ErrAccessDenied, nodes.ErrAccessDenied}
)

// AccessRules are scripted-model rules that answer the matrix's questions:
// each classified as a question, generated as its case's SQL, and
// interpreted with a fixed sentence ("Here is case 1.").
func AccessRules() string {
	var b strings.Builder
	for i, c := range AccessCases {
		match := "'(?im)^Question: " + c.Question(i) + `\b'`
		b.WriteString("  - step: classify\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"intent\": \"analytics_query\", \"confidence\": 0.9}'\n")
		b.WriteString("  - step: generate_sql\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"sql\": \"" + strings.ReplaceAll(c.SQL, "'", "''") + "\", \"assumptions\": [], \"explanation\": \"x\"}'\n")
		b.WriteString("  - step: interpret\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"answer\": \"Here is " + c.Question(i) + ".\"}'\n")
	}
	return b.String()
}
