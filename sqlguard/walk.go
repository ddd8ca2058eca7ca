package sqlguard

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// checker walks the parse tree of one SELECT and keeps the first finding of
// each kind: an unsafe one outranks a too-deep tree, which outranks a fixable
// one, so an attack is never reported as a mere mistake.
type checker struct {
	sql     string
	p       Policy
	extra   map[string]bool                        // Policy.Functions
	scopes  []map[string]*pg_query.CommonTableExpr // CTEs visible at the current node, by name
	deepest int
	unsafe  *Rejection
	fixable *Rejection

	// For Policy.DeniedColumns and MaskedColumns: the readable relations
	// read, with the names that qualify their columns, and whether a
	// column alias list renames their columns; the join aliases around
	// the relation being walked (in this SELECT); column references;
	// whether a star or NATURAL JOIN was used.
	reads   map[string][]string
	renamed map[string]bool
	joins   []*joinFrame
	refs    []colRef
	stars   bool
	// For every statement: what each name in FROM denotes, and the names
	// taken from rows, x.f and (v).f, each a column, a field or a
	// function call (fields.go); the columns each SELECT walked returns
	// (colnames.go).
	scope   *scope // the FROM names of the SELECT being walked (fields.go)
	sels    []selection
	outputs map[*pg_query.SelectStmt]relation
	fields  map[string]bool // knownField's, lower case, once asked
	// subParent, when hasSubParent, is what the next SELECT walked (a
	// subquery in FROM) sees around it.
	subParent    *scope
	hasSubParent bool
	// selScope is the FROM names of the SELECT being walked (those of
	// the joins in it are in scopes below it while FROM is read), and
	// selParent what that SELECT sees around it.
	selScope, selParent *scope
	// For Policy.MaskedColumns: how deep the walk is in a select list and
	// in count(), and the path from the statement to the message being
	// walked (masked.go).
	inTarget int
	inCount  int
	path     []frame

	// at is the message children is walking the fields of; field, bound
	// once, is what it hands Range.
	at    parent
	field func(protoreflect.FieldDescriptor, protoreflect.Value) bool
}

func newChecker(sql string, p Policy) *checker {
	extra := make(map[string]bool, len(p.Functions))
	for _, f := range p.Functions {
		extra[f] = true
	}
	c := &checker{sql: sql, p: p, extra: extra}
	c.field = c.walkField
	return c
}

// run checks the statement rooted at sel (depth 1).
func (c *checker) run(sel *pg_query.SelectStmt) *Rejection {
	c.walk(sel.ProtoReflect(), 1)
	if c.unsafe == nil {
		c.calls()
	}
	if c.unsafe == nil {
		if r := c.deniedColumn(); r != nil {
			c.report(r)
		}
	}
	switch {
	case c.unsafe != nil:
		return c.unsafe
	case c.deepest > c.p.maxDepth():
		return reject(ClassTooDeep, "the statement nests %d levels deep; the limit is %d, so flatten subqueries and expressions (use CTEs)", c.deepest, c.p.maxDepth())
	}
	return c.fixable
}

func (c *checker) report(r *Rejection) {
	switch {
	case r.Class.Unsafe():
		if c.unsafe == nil {
			c.unsafe = r
		}
	case c.fixable == nil:
		c.fixable = r
	}
}

// walk visits m and everything below it. The whole tree is walked, because
// writes, locks and dangerous calls can hide in CTEs, subqueries, function
// arguments, LATERAL items and set-operation arms at any depth.
func (c *checker) walk(m protoreflect.Message, depth int) {
	if c.unsafe != nil {
		return
	}
	c.deepest = max(c.deepest, depth)
	switch n := m.Interface().(type) {
	case *pg_query.SelectStmt:
		c.selectStmt(n, depth)
		return
	case *pg_query.CommonTableExpr:
		if n.GetCtequery().GetSelectStmt() == nil {
			c.report(reject(ClassWritingCTE, "the CTE %q does not SELECT; data-modifying CTEs may not run", n.GetCtename()))
			return
		}
	case *pg_query.InsertStmt, *pg_query.UpdateStmt, *pg_query.DeleteStmt, *pg_query.MergeStmt:
		c.report(reject(ClassWritingCTE, "a nested statement changes data; write only SELECTs"))
		return
	case *pg_query.FuncCall:
		c.funcCall(n)
		if names := stringList(n.GetFuncname()); len(names) > 0 && names[len(names)-1] == "count" {
			// What count() reads is counted, not returned.
			c.inCount++
			c.children(m, depth, "")
			c.inCount--
			return
		}
	case *pg_query.A_Expr:
		c.operator(n)
	case *pg_query.TypeName:
		c.typeName(n)
	case *pg_query.RangeVar:
		c.relation(n)
		c.rangeVar(n)
	case *pg_query.RangeSubselect:
		// A subquery in FROM sees the SELECTs around its own, and with
		// LATERAL the FROM items before it: not the others.
		c.subParent, c.hasSubParent = c.selParent, true
		if n.GetLateral() {
			c.subParent = c.before()
		}
		c.children(m, depth, "")
		c.derived(n)
		return
	case *pg_query.RangeFunction:
		// A function's arguments see the FROM items before it.
		sc := c.scope
		c.scope = c.before()
		c.children(m, depth, "")
		c.scope = sc
		c.rangeFunction(n)
		return
	case *pg_query.ColumnRef:
		c.columnRef(n)
	case *pg_query.A_Indirection:
		if c.indirection(n) {
			c.children(m, depth, "arg")
			return
		}
	case *pg_query.JoinExpr:
		c.usingColumns(n)
		c.join(n, m, depth)
		return
	case *pg_query.RangeTableSample:
		c.tableSample(n)
		// PostgreSQL reads TABLESAMPLE's arguments before the table
		// joins FROM and without LATERAL: they see no item of this
		// SELECT's FROM (not the table sampled, not the items before
		// it), only the SELECTs around.
		c.enter(m, "relation", 0)
		c.walk(n.GetRelation().ProtoReflect(), depth+1)
		c.leave()
		sc := c.scope
		c.scope = &scope{parent: c.selParent}
		c.children(m, depth, "relation")
		c.scope = sc
		return
	case *pg_query.RangeTableFunc, *pg_query.XmlExpr, *pg_query.XmlSerialize:
		// XML parsing (entity expansion) is attack surface analytics does
		// not need.
		c.report(reject(ClassFunction, "XML functions are not allowed; use text or JSON functions"))
	}
	c.children(m, depth, "")
}

// children walks the message fields of m, except the one named skip.
// Range calls one function bound once per checker (walkField) rather than a
// closure made for each message: the walk then allocates nothing per node.
func (c *checker) children(m protoreflect.Message, depth int, skip protoreflect.Name) {
	_, isSelect := m.Interface().(*pg_query.SelectStmt)
	outer := c.at
	c.at = parent{m: m, depth: depth, skip: skip, isSelect: isSelect}
	m.Range(c.field)
	c.at = outer
}

// parent is the message whose fields children walks.
type parent struct {
	m        protoreflect.Message
	depth    int
	skip     protoreflect.Name
	isSelect bool
}

// walkField walks one field of c.at, the message children ranges over.
func (c *checker) walkField(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	at := c.at // the walks below change c.at, and restore it
	if fd.Name() == at.skip || fd.Message() == nil || fd.IsMap() {
		return true
	}
	if at.isSelect && fd.Name() == "target_list" {
		c.inTarget++
		defer func() { c.inTarget-- }()
	}
	if fd.IsList() {
		l := v.List()
		for i := 0; i < l.Len() && c.unsafe == nil; i++ {
			c.enter(at.m, fd.Name(), i)
			c.walk(l.Get(i).Message(), at.depth+1)
			c.leave()
		}
	} else {
		c.enter(at.m, fd.Name(), 0)
		c.walk(v.Message(), at.depth+1)
		c.leave()
	}
	return c.unsafe == nil
}

// selectStmt checks one SELECT (or set operation, or VALUES) and walks it
// with its CTE names in scope.
func (c *checker) selectStmt(s *pg_query.SelectStmt, depth int) {
	if s.GetIntoClause() != nil {
		c.report(reject(ClassSelectInto, "SELECT INTO creates a table; return the rows instead"))
	}
	if len(s.GetLockingClause()) > 0 {
		c.report(reject(ClassLocking, "remove the FOR UPDATE/SHARE clause: results are read-only"))
	}
	// A subquery's own clauses are not the outer select list's.
	inTarget, inCount, joins, outer := c.inTarget, c.inCount, c.joins, c.scope
	c.inTarget, c.inCount, c.joins = 0, 0, nil
	// Its FROM names are its own, and it sees its outer SELECTs' (a
	// subquery in FROM, only those walk chose).
	parent := outer
	if c.hasSubParent {
		parent, c.subParent, c.hasSubParent = c.subParent, nil, false
	}
	c.scope = &scope{parent: parent}
	selScope, selParent := c.selScope, c.selParent
	c.selScope, c.selParent = c.scope, parent
	defer func() {
		c.inTarget, c.inCount, c.joins, c.scope = inTarget, inCount, joins, outer
		c.selScope, c.selParent = selScope, selParent
	}()
	mark := len(c.scopes)
	if wc := s.GetWithClause(); wc != nil {
		c.with(wc, s, depth+1)
	}
	c.seriesProduct(s)
	c.children(s.ProtoReflect(), depth, "with_clause")
	c.output(s)
	c.scopes = c.scopes[:mark]
}

// with walks the CTEs of wc with PostgreSQL's scoping: in a plain WITH a CTE
// sees only the CTEs before it (a later name still means a real relation);
// in WITH RECURSIVE every CTE sees them all. It leaves all names in scope for
// the rest of the owning statement.
func (c *checker) with(wc *pg_query.WithClause, owner *pg_query.SelectStmt, depth int) {
	c.deepest = max(c.deepest, depth)
	// A CTE's query sees the SELECTs around the one that owns it, not
	// its FROM.
	owned := c.scope
	c.scope = owned.parent
	defer func() { c.scope = owned }()
	ctes := make([]*pg_query.CommonTableExpr, 0, len(wc.GetCtes()))
	for _, n := range wc.GetCtes() {
		ctes = append(ctes, n.GetCommonTableExpr())
	}
	for i, n := range wc.GetCtes() {
		visible := ctes[:i]
		if wc.GetRecursive() {
			visible = ctes
			c.recursion(n.GetCommonTableExpr(), owner)
		}
		c.scopes = append(c.scopes, cteSet(visible))
		c.walk(n.ProtoReflect(), depth+1)
		c.scopes = c.scopes[:len(c.scopes)-1]
	}
	c.scopes = append(c.scopes, cteSet(ctes))
}

func (c *checker) isCTE(name string) bool {
	return c.cte(name) != nil
}

// cte returns the CTE name denotes where the walk is, or nil: the
// innermost WITH's of that name.
func (c *checker) cte(name string) *pg_query.CommonTableExpr {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if cte := c.scopes[i][name]; cte != nil {
			return cte
		}
	}
	return nil
}

func cteSet(ctes []*pg_query.CommonTableExpr) map[string]*pg_query.CommonTableExpr {
	s := make(map[string]*pg_query.CommonTableExpr, len(ctes))
	for _, cte := range ctes {
		s[cte.GetCtename()] = cte
	}
	return s
}

func nameSet(names []string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// stringList returns the String values of a name list such as
// FuncCall.funcname; other nodes (a * in a column reference) are skipped.
func stringList(nodes []*pg_query.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.GetSval())
		}
	}
	return out
}

// lastName returns the last String of a qualified name, or "".
func lastName(nodes []*pg_query.Node) string {
	if names := stringList(nodes); len(names) > 0 {
		return names[len(names)-1]
	}
	return ""
}

// anyBelow reports whether pred holds for m or any message below it.
func anyBelow(m protoreflect.Message, pred func(protoreflect.Message) bool) bool {
	if pred(m) {
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len() && !found; i++ {
				found = anyBelow(v.List().Get(i).Message(), pred)
			}
		default:
			found = anyBelow(v.Message(), pred)
		}
		return !found
	})
	return found
}

// join walks a JOIN with the names of what it joins in a scope of its
// own: its ON clause sees only them and the SELECTs around. An aliased
// join hides them (the alias denotes them all, and (j).col and j.col read
// their columns); an unaliased one adds them to the scope around it.
func (c *checker) join(n *pg_query.JoinExpr, m protoreflect.Message, depth int) {
	outer := c.scope
	inner := &scope{parent: outer}
	c.scope = inner
	a := n.GetAlias()
	if a != nil {
		c.joins = append(c.joins, &joinFrame{alias: a, outer: outer})
		c.joinColumns(a)
	}
	c.children(m, depth, "quals")
	if q := n.GetQuals(); q != nil && c.unsafe == nil {
		c.scope = &scope{rels: inner.rels, parent: c.selParent}
		c.enter(m, "quals", 0)
		c.walk(q.ProtoReflect(), depth+1)
		c.leave()
	}
	if ua := n.GetJoinUsingAlias(); ua.GetAliasname() != "" && a == nil {
		// JOIN … USING (id) AS x: x has the columns joined on only; an
		// alias of the join hides it, as it hides what the join joins.
		outer.add(ua.GetAliasname(), relation{known: true, cols: stringList(n.GetUsingClause())})
	}
	if a != nil {
		for _, r := range c.joins[len(c.joins)-1].rels {
			outer.add(a.GetAliasname(), r)
		}
		c.joins = c.joins[:len(c.joins)-1]
	} else {
		for name, rs := range inner.rels {
			for _, r := range rs {
				outer.add(name, r)
			}
		}
	}
	c.scope = outer
}
