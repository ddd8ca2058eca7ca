package eval

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Refs are what a gold SQL query refers to, found with PostgreSQL's parser.
type Refs struct {
	// Tables are the relations it reads, qualified as written ("analytics.apps"
	// or "apps"); CTEs are left out.
	Tables []string
	// Columns are the names of the columns it names, lower-case.
	Columns []string
	// Literals are the strings it compares a column with (=, <>, IN).
	Literals []Literal
}

// Literal is a string a query compares a column with.
type Literal struct {
	// Table is the relation the column's qualifier names (as written, with
	// its schema when given), or "" when the column is unqualified.
	Table  string
	Column string
	Value  string
}

// References parses sql and lists what it refers to.
func References(sql string) (Refs, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return Refs{}, err
	}
	w := &refWalker{aliases: map[string]string{}, ctes: map[string]bool{}}
	for _, st := range tree.Stmts {
		w.walk(st.ProtoReflect())
	}
	var r Refs
	for _, t := range w.tables {
		if !w.ctes[t] && !slices.Contains(r.Tables, t) {
			r.Tables = append(r.Tables, t)
		}
	}
	for _, c := range w.columns {
		if !slices.Contains(r.Columns, c) {
			r.Columns = append(r.Columns, c)
		}
	}
	for _, l := range w.literals {
		if q, ok := w.aliases[l.Table]; ok {
			l.Table = q
		}
		if !w.ctes[l.Table] {
			r.Literals = append(r.Literals, l)
		}
	}
	return r, nil
}

type refWalker struct {
	tables   []string
	columns  []string
	literals []Literal
	aliases  map[string]string // alias or bare name → the relation as written
	ctes     map[string]bool
}

func (w *refWalker) walk(m protoreflect.Message) {
	switch n := m.Interface().(type) {
	case *pg_query.CommonTableExpr:
		w.ctes[strings.ToLower(n.GetCtename())] = true
	case *pg_query.RangeVar:
		name := strings.ToLower(n.GetRelname())
		if s := n.GetSchemaname(); s != "" {
			name = strings.ToLower(s) + "." + name
		}
		w.tables = append(w.tables, name)
		w.aliases[strings.ToLower(n.GetRelname())] = name
		if a := n.GetAlias().GetAliasname(); a != "" {
			w.aliases[strings.ToLower(a)] = name
		}
	case *pg_query.ColumnRef:
		if _, col, ok := columnRef(n); ok {
			w.columns = append(w.columns, col)
		}
	case *pg_query.A_Expr:
		w.literal(n)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				if e := l.Get(i); fd.Kind() == protoreflect.MessageKind {
					w.walk(e.Message())
				}
			}
		case fd.Kind() == protoreflect.MessageKind:
			w.walk(v.Message())
		}
		return true
	})
}

// literal records `column = 'text'`, `column <> 'text'` and
// `column IN ('a', 'b')`, either way round.
func (w *refWalker) literal(e *pg_query.A_Expr) {
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_IN:
	default:
		return
	}
	if e.GetKind() == pg_query.A_Expr_Kind_AEXPR_OP && len(e.GetName()) == 1 {
		if op := e.GetName()[0].GetString_().GetSval(); op != "=" && op != "<>" && op != "!=" {
			return
		}
	}
	l, r := e.GetLexpr(), e.GetRexpr()
	if l.GetColumnRef() == nil {
		l, r = r, l
	}
	table, col, ok := columnRef(l.GetColumnRef())
	if !ok {
		return
	}
	var consts []*pg_query.Node
	if list := r.GetList(); list != nil {
		consts = list.GetItems()
	} else {
		consts = []*pg_query.Node{r}
	}
	for _, c := range consts {
		if s := c.GetAConst().GetSval(); s != nil {
			w.literals = append(w.literals, Literal{Table: table, Column: col, Value: s.GetSval()})
		}
	}
}

// columnRef reads a column reference: its qualifier (lower-case, "" when
// none) and its name.
func columnRef(c *pg_query.ColumnRef) (qualifier, column string, ok bool) {
	fields := c.GetFields()
	if len(fields) == 0 {
		return "", "", false
	}
	column = fields[len(fields)-1].GetString_().GetSval()
	if column == "" {
		return "", "", false // a star
	}
	var quals []string
	for _, f := range fields[:len(fields)-1] {
		quals = append(quals, strings.ToLower(f.GetString_().GetSval()))
	}
	return strings.Join(quals, "."), strings.ToLower(column), true
}
