package cubewarehouse

import (
	"context"
	"strings"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// normalizeFor normalises in for ctx's caller: against the part of m
// their policy lets them read (readable), so that a problem's "did you
// mean" and "the cubes are" name only that part, never what else the
// model holds (docs/access.md). A cube or member outside it that the
// query names exactly is refused first, as permitted refuses it
// (access_denied), not explained as unknown.
func normalizeFor(ctx context.Context, m *cube.Meta, in cube.Query) (cube.Query, error) {
	a := warehouse.CallerOf(ctx).Access
	if a == nil {
		return cube.Normalize(m, in)
	}
	a = warehouse.Decide(catalogOf(m), a)
	if err := namedOutside(m, a, in); err != nil {
		return cube.Query{}, err
	}
	// Ordered by but not selected, which Normalize would have the
	// generator select: a masked member may not be.
	for _, o := range in.Order {
		if c, _, ok := strings.Cut(o.Member, "."); ok && a.AllowsColumn("", c, o.Member) && a.MasksColumn("", c, o.Member) {
			return cube.Query{}, maskedRefusal(o.Member)
		}
	}
	return cube.Normalize(readable(m, a), in)
}

// namedOutside refuses, as Forbidden, a query naming exactly (as written,
// or with a granularity after a time dimension: "Cube.date.month") a
// member of m, or a cube of m, that a does not allow.
func namedOutside(m *cube.Meta, a warehouse.Access, in cube.Query) error {
	for _, name := range members(in) {
		names := []string{name}
		if strings.Count(name, ".") == 2 {
			names = append(names, name[:strings.LastIndexByte(name, '.')])
		}
		for _, n := range names {
			c, _, _ := strings.Cut(n, ".")
			if !hasCube(m, c) {
				continue
			}
			if !a.AllowsTable("", c) {
				return &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read the cube " + c}
			}
			if _, _, ok := m.Lookup(n); ok && !a.AllowsColumn("", c, n) {
				return &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read " + n}
			}
		}
	}
	return nil
}

func hasCube(m *cube.Meta, name string) bool {
	for _, c := range m.Cubes {
		if c.Name == name {
			return true
		}
	}
	return false
}

// readable is the part of m that a (decided over m's catalog) lets its
// caller read: the cubes and views it allows, with the members it allows
// (masked ones too, which may filter); a cube left with no member is left
// out, as the catalog leaves it out (warehouse.Filter).
func readable(m *cube.Meta, a warehouse.Access) *cube.Meta {
	out := &cube.Meta{Cubes: make([]cube.CubeMeta, 0, len(m.Cubes))}
	keep := func(c string, ms []cube.Member) []cube.Member {
		var kept []cube.Member
		for _, mem := range ms {
			if a.AllowsColumn("", c, mem.Name) {
				kept = append(kept, mem)
			}
		}
		return kept
	}
	for _, c := range m.Cubes {
		if !a.AllowsTable("", c.Name) {
			continue
		}
		c.Measures, c.Dimensions, c.Segments = keep(c.Name, c.Measures), keep(c.Name, c.Dimensions), keep(c.Name, c.Segments)
		if len(c.Measures)+len(c.Dimensions)+len(c.Segments) > 0 {
			out.Cubes = append(out.Cubes, c)
		}
	}
	return out
}
