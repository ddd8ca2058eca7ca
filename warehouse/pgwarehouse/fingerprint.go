package pgwarehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// FingerprintForm names the form of fingerprint's fingerprints
// (warehouse.Dialect.FingerprintForm). A change to what fingerprint
// returns for any query names a new one ("pg-2"): TestFingerprintForm
// fails until it does.
const FingerprintForm = "pg-1"

// fingerprint identifies sql whatever its layout, letter case and
// comments: a hash of its parse tree, constants included (year = 2017 is
// not year = 2018), without where in the text each part was written. The
// parser's encoding of the tree is hashed as it comes, undecoded.
func fingerprint(sql string) (string, error) {
	encoded, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return "", fmt.Errorf("fingerprint the query: %w", err)
	}
	return fingerprintEncoded(encoded)
}

// fingerprintEncoded is fingerprint of the query whose parse tree the
// parser encoded as encoded (sqlguard.Guarded.Encoded): nothing parses it
// again. Its 32 hex characters tell it from the ids before it (pg_query's
// fingerprint, a dash and a hash of the deparsed query), which
// store.DB.RefingerprintEarlier replaces in stored examples.
func fingerprintEncoded(encoded []byte) (string, error) {
	buf := shapeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooledShape {
			shapeBuffers.Put(buf)
		}
	}()
	shape, err := appendShape((*buf)[:0], encoded, parseResult, 0)
	if err != nil {
		return "", fmt.Errorf("fingerprint the query: %w", err)
	}
	*buf = shape
	sum := sha256.Sum256(shape)
	return hex.EncodeToString(sum[:16]), nil
}

// shapeBuffers keeps the buffers fingerprints build shapes in, up to
// maxPooledShape bytes each: every question's check makes one.
var shapeBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledShape = 64 << 10

var parseResult = (&pg_query.ParseResult{}).ProtoReflect().Descriptor()

// maxShapeDepth bounds appendShape's recursion as protobuf's decoder
// bounds its own.
const maxShapeDepth = 10000

// appendShape appends to shape the protobuf encoding b of a message of
// type md with its location fields left out: every field as encoded (its
// tag, then its value) but a message's, whose tag is followed by its
// fields' shapes and a zero byte, which no tag can be. Equal trees encode
// alike (the encoder writes fields in the order of their numbers, leaving
// out zero values), so they have one shape; unequal trees have unequal
// shapes, as the shape can be read back into the tree less locations.
func appendShape(shape, b []byte, md protoreflect.MessageDescriptor, depth int) ([]byte, error) {
	if depth > maxShapeDepth {
		return nil, errors.New("the parse tree is too deep")
	}
	fields := md.Fields()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		field := b[:n+m]
		b = b[n+m:]
		fd := fields.ByNumber(num)
		switch {
		case fd == nil:
			shape = append(shape, field...)
		case isLocation(fd):
		case fd.Kind() == protoreflect.MessageKind && typ == protowire.BytesType:
			inner, _ := protowire.ConsumeBytes(field[n:])
			var err error
			if shape, err = appendShape(append(shape, field[:n]...), inner, fd.Message(), depth+1); err != nil {
				return nil, err
			}
			shape = append(shape, 0)
		default:
			shape = append(shape, field...)
		}
	}
	return shape, nil
}

// isLocation reports whether fd says where in the text a part of the
// query was written, which layout and comments change.
func isLocation(fd protoreflect.FieldDescriptor) bool {
	switch fd.Name() {
	case "location", "stmt_location", "stmt_len":
		return fd.Kind() == protoreflect.Int32Kind
	}
	return false
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
