package pgwarehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// fingerprint identifies sql whatever its layout, letter case and
// comments: pg_query's fingerprint of its structure, then a hash of the
// query as PostgreSQL's parser deparses it, which keeps the constants the
// fingerprint leaves out (year = 2017 is not year = 2018).
func fingerprint(sql string) (string, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return "", fmt.Errorf("fingerprint the query: %w", err)
	}
	return fingerprintTree(sql, tree)
}

// fingerprintTree is fingerprint of sql whose parse tree is tree (the
// guard's), deparsed rather than parsed again. pg_query fingerprints only
// text, so its C parser still reads sql once, without the tree's decoding.
func fingerprintTree(sql string, tree *pg_query.ParseResult) (string, error) {
	fp, err := pg_query.Fingerprint(sql)
	if err != nil {
		return "", fmt.Errorf("fingerprint the query: %w", err)
	}
	canonical, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("fingerprint the query: %w", err)
	}
	sum := sha256.Sum256([]byte(canonical))
	return fp + "-" + hex.EncodeToString(sum[:8]), nil
}

// tables lists the relations sql reads, as written ("schema.table" or
// "table"), lower case, without its common table expressions. Every new
// question asks it of the same stored examples' queries, so the lists are
// remembered by the query's text: they depend on nothing else.
func tables(sql string) ([]string, error) {
	if names, ok := tablesMemo.get(sql); ok {
		return names, nil
	}
	names, err := parseTables(sql)
	if err != nil {
		return nil, err
	}
	tablesMemo.put(sql, names)
	return slices.Clone(names), nil
}

// tablesMemo remembers tables' answers, up to tablesMemoSize queries;
// when full, it starts again empty.
var tablesMemo = textMemo{max: tablesMemoSize}

const tablesMemoSize = 1024

// textMemo maps texts to the lists a pure function of them returned.
type textMemo struct {
	mu  sync.Mutex
	max int
	m   map[string][]string
}

// get returns a copy of the list remembered for text, the caller's to change.
func (t *textMemo) get(text string) ([]string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	names, ok := t.m[text]
	return slices.Clone(names), ok
}

func (t *textMemo) put(text string, names []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil || len(t.m) >= t.max {
		t.m = make(map[string][]string)
	}
	t.m[text] = names
}

func parseTables(sql string) ([]string, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, fmt.Errorf("read the query's tables: %w", err)
	}
	var names []string
	ctes := map[string]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.CommonTableExpr:
			ctes[strings.ToLower(n.GetCtename())] = true
		case *pg_query.RangeVar:
			name := strings.ToLower(n.GetRelname())
			if s := n.GetSchemaname(); s != "" {
				name = strings.ToLower(s) + "." + name
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
				l := v.List()
				for i := range l.Len() {
					walk(l.Get(i).Message())
				}
			case !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
				walk(v.Message())
			}
			return true
		})
	}
	for _, st := range tree.Stmts {
		walk(st.ProtoReflect())
	}
	return slices.DeleteFunc(names, func(n string) bool { return ctes[n] }), nil
}
