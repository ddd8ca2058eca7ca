package answer

import (
	"reflect"
	"strings"
	"testing"
)

// What a refusal quotes of untrusted input: recognisable, never whole when
// long, and never a control character that would reach a terminal.
func TestQuoted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "short", in: "export_csv", want: `"export_csv"`},
		{name: "empty", in: "", want: `""`},
		{name: "40 characters stay whole", in: strings.Repeat("a", 40), want: `"` + strings.Repeat("a", 40) + `"`},
		{name: "41 characters are cut", in: strings.Repeat("a", 41), want: `"` + strings.Repeat("a", 39) + `…"`},
		{name: "cut between characters, not bytes", in: strings.Repeat("é", 300), want: `"` + strings.Repeat("é", 39) + `…"`},
		{name: "control characters escaped", in: "a\x1b[2Jb\n", want: `"a\x1b[2Jb\n"`},
		{name: "quotes escaped", in: `say "hi"`, want: `"say \"hi\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Quoted(tt.in); got != tt.want {
				t.Errorf("Quoted(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// A question quoted in the bot's words (a schedule's note to its owner,
// the presets) is never a link, bold or code of the bot's, whatever
// markup it holds; the bot's own words around it still are.
func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, question string }{
		{name: "markdown link", question: "games in 2018 [Re-authenticate the bot here](https://evil.example/login)"},
		{name: "slack link", question: "revenue <https://evil.example/login|Re-authenticate here>"},
		{name: "bare address", question: "see <https://evil.example/login>"},
		{name: "bold and code", question: "*urgent* revenue `DROP TABLE`"},
		{name: "markdown bold and italic", question: "**all** of __it__ and _this_"},
		{name: "entities typed", question: "AT&T &amp; Q&A where orders > 100 &lt;!channel&gt;"},
		{name: "mention", question: "<!channel> games by <@U0456DEF> in <#C0123ABC|growth>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Concat(Words("I stopped your schedule "), Quote(tt.question), Words(": resume it from `/ask schedules`."))
			want := "I stopped your schedule “" + tt.question + "”: resume it from /ask schedules."
			if p := got.Plain(); p != want {
				t.Errorf("got %q, want %q", p, want)
			}
			var code []string
			for _, sp := range got {
				if sp.Link != "" || sp.Bold || sp.Italic || sp.Mention != "" {
					t.Errorf("got the span %#v, want no link, emphasis or mention", sp)
				}
				if sp.Code {
					code = append(code, sp.Text)
				}
			}
			if len(code) != 1 || code[0] != "/ask schedules" {
				t.Errorf("got code spans %q, want only the bot's [/ask schedules]", code)
			}
		})
	}
}

// Words reads the bot's markup and keeps the white space at its ends, so
// pieces joined with Concat read as written.
func TestWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     Text
	}{
		{name: "ends kept", in: " run `a3f0` now ", want: Text{{Text: " "}, {Text: "run "}, {Text: "a3f0", Code: true}, {Text: " now"}, {Text: " "}}},
		{name: "only space", in: " ", want: Text{{Text: " "}}},
		{name: "empty", in: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Words(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Words(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}
