package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A translated message's quotation marks are read as English's are: what
// they quote stays only when the query wrote it.
func TestRedactTranslatedQuotes(t *testing.T) {
	t.Parallel()
	words := queryWords("SELECT CAST(email AS int) FROM people WHERE code = 'x1'")
	keep := func(s string) bool { return warehouse.Written(s, words, func(string) bool { return false }) }
	tests := []struct{ message, want string }{
		{`ungültige Eingabesyntax für Typ integer: „ann@corp.test“`, `ungültige Eingabesyntax für Typ integer: „…“`},
		{`syntaxe en entrée invalide pour le type integer : « ann@corp.test »`, `syntaxe en entrée invalide pour le type integer : «…»`},
		{`некорректный синтаксис для типа integer: «ann@corp.test»`, `некорректный синтаксис для типа integer: «…»`},
		{`integer型の入力構文が不正です: 「ann@corp.test」`, `integer型の入力構文が不正です: 「…」`},
		{`invalid input syntax for type integer: “ann@corp.test”`, `invalid input syntax for type integer: “…”`},
		{`invalid input syntax for type integer: "x1"`, `invalid input syntax for type integer: "x1"`},
		{`column „email“ does not exist`, `column „email“ does not exist`},
		{`unterminated: "ann@corp`, `unterminated: "…`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, warehouse.RedactQuoted(tt.message, keep), tt.message)
	}
}
