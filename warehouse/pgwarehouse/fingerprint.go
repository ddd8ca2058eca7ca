package pgwarehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

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
// "table"), lower case, without its common table expressions.
func tables(sql string) ([]string, error) {
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
