package cube

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Meta is Cube's data model as /meta describes it, with the cubes and each
// cube's members sorted by name so prompts built from it are stable.
type Meta struct {
	Cubes []CubeMeta
}

// CubeMeta is one cube or view.
type CubeMeta struct {
	Name        string
	Title       string
	Description string
	// View: a view, whose members stand for other cubes' (AliasMember).
	View       bool
	Measures   []Member
	Dimensions []Member
	Segments   []Member
}

// Member is a measure, dimension or segment.
type Member struct {
	// Name is fully qualified: "Apps.count".
	Name        string
	Title       string
	ShortTitle  string
	Description string
	// Type is what /meta says: "number", "string", "time" or "boolean" for
	// dimensions; for measures usually "number" (Cube 0.33 and 1.x), or the
	// measure's own type ("count", "sum", ...) in other versions. Empty for
	// segments.
	Type string
	// AggType is a measure's aggregation ("count", "sum", "avg", ...), empty
	// for dimensions, segments and versions that do not report it.
	AggType string
	// AliasMember is, for a view's member, the member of a cube it stands
	// for ("Orders.count"), when /meta says (aliasMember): Cube 0.33 never
	// does, later releases for measures and dimensions, none for segments.
	AliasMember string
}

// Kind says which list of a query a member belongs in.
type Kind int

// Member kinds. Time dimensions are dimensions of Type "time": they go in
// Query.Dimensions or Query.TimeDimensions.
const (
	KindMeasure Kind = iota + 1
	KindDimension
	KindSegment
)

func (k Kind) String() string {
	switch k {
	case KindMeasure:
		return "measure"
	case KindDimension:
		return "dimension"
	case KindSegment:
		return "segment"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Meta reads the data model from GET /meta.
func (c *Client) Meta(ctx context.Context) (*Meta, error) {
	var raw rawMeta
	if err := c.call(ctx, "meta", http.MethodGet, "/meta", nil, &raw); err != nil {
		return nil, fmt.Errorf("cube meta: %w", err)
	}
	return raw.meta(), nil
}

// rawMeta is the part of the /meta answer the bot uses.
type rawMeta struct {
	Cubes []struct {
		Name        string      `json:"name"`
		Type        string      `json:"type"`
		Title       string      `json:"title"`
		Description string      `json:"description"`
		Public      *bool       `json:"public"`
		Measures    []rawMember `json:"measures"`
		Dimensions  []rawMember `json:"dimensions"`
		Segments    []rawMember `json:"segments"`
	} `json:"cubes"`
}

type rawMember struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	ShortTitle  string `json:"shortTitle"`
	Description string `json:"description"`
	Type        string `json:"type"`
	AggType     string `json:"aggType"`
	AliasMember string `json:"aliasMember"`
	Public      *bool  `json:"public"`
	IsVisible   *bool  `json:"isVisible"`
}

// meta keeps the public, visible cubes and members, sorted by name. Hidden
// members are dropped: Cube 1.x refuses queries on private members, and the
// model should not be offered what the model's author hid.
func (r rawMeta) meta() *Meta {
	m := &Meta{}
	for _, rc := range r.Cubes {
		if rc.Public != nil && !*rc.Public {
			continue
		}
		m.Cubes = append(m.Cubes, CubeMeta{
			Name:        rc.Name,
			Title:       rc.Title,
			Description: rc.Description,
			View:        rc.Type == "view",
			Measures:    members(rc.Measures),
			Dimensions:  members(rc.Dimensions),
			Segments:    members(rc.Segments),
		})
	}
	slices.SortFunc(m.Cubes, func(a, b CubeMeta) int { return cmp.Compare(a.Name, b.Name) })
	return m
}

func members(raw []rawMember) []Member {
	out := make([]Member, 0, len(raw))
	for _, r := range raw {
		if (r.Public != nil && !*r.Public) || (r.IsVisible != nil && !*r.IsVisible) {
			continue
		}
		out = append(out, Member{
			Name: r.Name, Title: r.Title, ShortTitle: r.ShortTitle,
			Description: r.Description, Type: r.Type, AggType: r.AggType, AliasMember: r.AliasMember,
		})
	}
	slices.SortFunc(out, func(a, b Member) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// ParseMeta reads the JSON body of a /meta answer, for callers that cache it
// or tests that load it from a file.
func ParseMeta(data []byte) (*Meta, error) {
	var raw rawMeta
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse cube meta: %w", err)
	}
	return raw.meta(), nil
}

// Lookup finds a member by its fully qualified name ("Apps.count"), exactly
// as Cube would.
func (m *Meta) Lookup(name string) (Member, Kind, bool) {
	cubeName, _, ok := strings.Cut(name, ".")
	if !ok {
		return Member{}, 0, false
	}
	for _, c := range m.Cubes {
		if c.Name != cubeName {
			continue
		}
		for _, list := range []struct {
			members []Member
			kind    Kind
		}{{c.Measures, KindMeasure}, {c.Dimensions, KindDimension}, {c.Segments, KindSegment}} {
			for _, mem := range list.members {
				if mem.Name == name {
					return mem, list.kind, true
				}
			}
		}
	}
	return Member{}, 0, false
}

// oneLine collapses whitespace so a multi-line description stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
