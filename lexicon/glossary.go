package lexicon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Glossary is the team's own words for its data (GLOSSARY_FILE): each term
// with the synonyms people use for it and, optionally, what it means in
// the data ("active user": last_seen within the last 30 days). A question
// that says a synonym is grounded as if it said the term; a question that
// says either shows the generator what the term means.
type Glossary struct {
	Entries []GlossaryEntry
}

// GlossaryEntry is one term of a glossary.
type GlossaryEntry struct {
	// Term is the word or phrase of the data ("customer", "active user").
	Term string `yaml:"term"`
	// Synonyms are other words people use for it ("client", "buyer").
	Synonyms []string `yaml:"synonyms"`
	// Means says what the term is in the data, for the query generator:
	// "a user whose last_seen is within the last 30 days".
	Means string `yaml:"means"`
}

// Glossary limits: a file a team writes, not a dictionary.
const (
	maxGlossaryEntries = 2000
	maxTermLen         = 80
	maxMeansLen        = 500
)

// LoadGlossary reads and checks a glossary file.
func LoadGlossary(path string) (*Glossary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("glossary: %w", err)
	}
	g, err := ParseGlossary(data)
	if err != nil {
		return nil, fmt.Errorf("glossary %s: %w", path, err)
	}
	return g, nil
}

// ParseGlossary reads a glossary:
//
//	terms:
//	  - term: customer
//	    synonyms: [client, buyer]
//	  - term: active user
//	    means: a user whose last_seen is within the last 30 days
//
// Every problem is reported, each with its line.
func ParseGlossary(data []byte) (*Glossary, error) {
	var typed struct {
		Terms []GlossaryEntry `yaml:"terms"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&typed); err != nil {
		var typeErr *yaml.TypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, errors.New("the file is empty: it needs a list of terms")
		case errors.As(err, &typeErr) && !strings.Contains(err.Error(), "field "):
			// Not a mapping with terms: a list, plain text, a flat map.
			return nil, errors.New(`expected a mapping with a list under "terms:" (each entry a "term:" with "synonyms:" or "means:"), got something else`)
		}
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// One document: a second, after "---", would be read by no one.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New(`the file holds more than one YAML document ("---"): put every term under the one "terms:"`)
	}
	var nodes struct {
		Terms []yaml.Node `yaml:"terms"`
	}
	if err := yaml.Unmarshal(data, &nodes); err != nil {
		return nil, err
	}
	if len(typed.Terms) == 0 {
		return nil, errors.New("no terms: the file needs a list under \"terms:\"")
	}
	if len(typed.Terms) > maxGlossaryEntries {
		return nil, fmt.Errorf("%d terms, more than %d", len(typed.Terms), maxGlossaryEntries)
	}
	var problems []string
	owner := map[string]string{} // a phrase's words → the term it names
	for i := range typed.Terms {
		e := &typed.Terms[i]
		line := nodes.Terms[i].Line
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
		}
		e.Term = strings.TrimSpace(e.Term)
		e.Means = strings.TrimSpace(e.Means)
		switch {
		case e.Term == "":
			bad("a term is missing (each entry needs \"term:\")")
			continue
		case len(e.Term) > maxTermLen:
			bad("term %.20q… is longer than %d characters", e.Term, maxTermLen)
		case len(e.Means) > maxMeansLen:
			bad("what %q means is longer than %d characters", e.Term, maxMeansLen)
		case len(e.Synonyms) == 0 && e.Means == "":
			bad("term %q has neither synonyms nor means: it would change nothing", e.Term)
		}
		for j, phrase := range append([]string{e.Term}, e.Synonyms...) {
			phrase = strings.TrimSpace(phrase)
			if j > 0 {
				e.Synonyms[j-1] = phrase
			}
			key := strings.Join(phraseStems(phrase), " ")
			switch {
			case key == "" && j == 0:
				bad("term %q has no word in it", e.Term)
			case key == "":
				bad("term %q has a synonym with no word in it", e.Term)
			case len(phrase) > maxTermLen:
				bad("synonym %.20q… of %q is longer than %d characters", phrase, e.Term, maxTermLen)
			case owner[key] != "" && owner[key] != e.Term:
				bad("%q is already a term or synonym of %q", phrase, owner[key])
			case owner[key] == e.Term && j > 0:
				bad("%q is listed twice for %q", phrase, e.Term)
			default:
				owner[key] = e.Term
			}
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return &Glossary{Entries: typed.Terms}, nil
}

// GlossaryMatch is an entry a question names.
type GlossaryMatch struct {
	Entry GlossaryEntry
	// Phrase is what the question says: the term or one of its synonyms.
	Phrase string
	// BySynonym reports that the question says a synonym, not the term.
	BySynonym bool
}

// Match returns the entries whose term or a synonym the question says,
// word for word up to word forms ("clients" says "client"), in the
// glossary's order.
func (g *Glossary) Match(question string) []GlossaryMatch {
	if g == nil {
		return nil
	}
	q := phraseStems(question)
	var out []GlossaryMatch
	for _, e := range g.Entries {
		if containsRun(q, phraseStems(e.Term)) {
			out = append(out, GlossaryMatch{Entry: e, Phrase: e.Term})
			continue
		}
		for _, s := range e.Synonyms {
			if containsRun(q, phraseStems(s)) {
				out = append(out, GlossaryMatch{Entry: e, Phrase: s, BySynonym: true})
				break
			}
		}
	}
	return out
}

// phraseStems are the stems of the words of text, split on anything but
// letters and digits.
func phraseStems(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		out = append(out, Stem(w))
	}
	return out
}

// containsRun reports whether run is a contiguous part of ws.
func containsRun(ws, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
