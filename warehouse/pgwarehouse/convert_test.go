package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseArray(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []any
		wantErr bool
	}{
		{name: "empty", in: "{}", want: []any{}},
		{name: "bare words", in: "{a,b}", want: []any{"a", "b"}},
		{name: "NULL any case", in: "{NULL,null}", want: []any{nil, nil}},
		{name: "quoted NULL is text", in: `{"NULL"}`, want: []any{"NULL"}},
		{name: "escapes", in: `{"a\"b","c\\d"}`, want: []any{`a"b`, `c\d`}},
		{name: "escaped bare word is not NULL", in: `{NUL\L}`, want: []any{"NULL"}},
		{name: "nested", in: "{{1,2},{3,4}}", want: []any{[]any{"1", "2"}, []any{"3", "4"}}},
		{name: "bounds", in: "[2:3]={x,y}", want: []any{"x", "y"}},
		{name: "spaces", in: "{ a , b }", want: []any{"a", "b"}},
		{name: "unterminated", in: "{a,b", wantErr: true},
		{name: "unterminated quote", in: `{"a}`, wantErr: true},
		{name: "no brace", in: "a,b", wantErr: true},
		{name: "trailing text", in: "{a}x", wantErr: true},
		{name: "empty element", in: "{a,,b}", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseArray(tt.in, ',')
			if tt.wantErr {
				assert.Error(t, err, "parseArray(%q) = %#v", tt.in, got)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got, "parseArray(%q)", tt.in)
		})
	}
}
