package answer

import (
	"reflect"
	"testing"
)

func TestMentions(t *testing.T) {
	t.Parallel()
	if got := ParseText("hi <@U0456DEF>"); got[0].Mention != "" || len(got) != 1 {
		t.Errorf("ParseText makes no mentions (a model's words must not ping people): %#v", got)
	}
	got := Mentions(ParseText("posts in <#C0123ABC|growth>, made by <@U0456DEF>; <#C0999|> too"))
	want := Text{
		{Text: "posts in "}, {Text: "#growth", Mention: "#C0123ABC"}, {Text: ", made by "},
		{Text: "@U0456DEF", Mention: "@U0456DEF"}, {Text: "; "}, {Text: "#C0999", Mention: "#C0999"}, {Text: " too"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseText mentions:\n got %#v\nwant %#v", got, want)
	}
	if p := got.Plain(); p != "posts in #growth, made by @U0456DEF; #C0999 too" {
		t.Errorf("Plain() = %q, want the names", p)
	}
}

// Labels writes mentions as the labels Mentions shows, leaving no mention.
func TestLabels(t *testing.T) {
	t.Parallel()
	const s = "every Friday to <#C0123ABC|growth>, cc <@U0456DEF>; <#C0999|> too, not <https://x.y|a link>"
	want := "every Friday to #growth, cc @U0456DEF; #C0999 too, not <https://x.y|a link>"
	if got := Labels(s); got != want {
		t.Errorf("Labels(%q) = %q, want %q", s, got, want)
	}
	for _, sp := range Mentions(ParseText(Labels(s))) {
		if sp.Mention != "" {
			t.Errorf("Mentions(ParseText(Labels(%q))) makes the mention %#v", s, sp)
		}
	}
}
