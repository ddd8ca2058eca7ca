package cube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Query is a Cube REST API query, as the model writes it and as it is sent.
type Query struct {
	Measures       []string        `json:"measures,omitempty"`
	Dimensions     []string        `json:"dimensions,omitempty"`
	Segments       []string        `json:"segments,omitempty"`
	Filters        []Filter        `json:"filters,omitempty"`
	TimeDimensions []TimeDimension `json:"timeDimensions,omitempty"`
	Order          Order           `json:"order,omitempty"`
	Limit          int             `json:"limit,omitempty"`
	// Total asks Cube to count every row of the query as if it named no
	// limit ([Result.Total]); Cube runs a second query for it.
	Total bool `json:"total,omitempty"`
}

// Filter is one condition on a member, or a group of conditions joined by
// Or or And (then Member, Operator and Values are empty).
type Filter struct {
	Member   string   `json:"member,omitempty"`
	Operator string   `json:"operator,omitempty"`
	Values   []any    `json:"values,omitempty"` // strings or numbers
	Or       []Filter `json:"or,omitempty"`
	And      []Filter `json:"and,omitempty"`
}

// TimeDimension selects a time dimension at a granularity ("month": one row
// per month) and/or restricts it to a date range.
type TimeDimension struct {
	Dimension   string `json:"dimension"`
	Granularity string `json:"granularity,omitempty"`
	// DateRange is a string Cube parses ("last year", "2018-01-01") or two
	// dates ([]string{"2018-01-01", "2018-12-31"}, both inclusive).
	DateRange any `json:"dateRange,omitempty"`
}

// Order is the requested row order, first item first. It marshals as Cube's
// array form [["Apps.count","desc"], ...] and unmarshals from that, from the
// object form {"Apps.count":"desc"} (keeping the key order, which is the
// order of precedence) or from [{"id":"Apps.count","desc":true}], the form
// Cube echoes back.
type Order []OrderItem

// OrderItem orders by one member; Direction is "asc" or "desc".
type OrderItem struct {
	Member    string
	Direction string
}

// MarshalJSON writes the array form, which both Cube versions accept and
// which, unlike an object, keeps the precedence in every JSON library.
func (o Order) MarshalJSON() ([]byte, error) {
	pairs := make([][2]string, len(o))
	for i, it := range o {
		pairs[i] = [2]string{it.Member, it.Direction}
	}
	return json.Marshal(pairs)
}

// UnmarshalJSON reads any of the three forms described at [Order].
func (o *Order) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*o = nil
		return nil
	case len(data) > 0 && data[0] == '{':
		return o.unmarshalObject(data)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("order: want [[member, direction], ...] or {member: direction}: %w", err)
	}
	out := make(Order, 0, len(raw))
	for _, r := range raw {
		it, err := unmarshalOrderItem(r)
		if err != nil {
			return err
		}
		out = append(out, it)
	}
	*o = out
	return nil
}

// unmarshalObject reads {"a":"desc","b":"asc"} token by token, because a Go
// map would lose which key comes first.
func (o *Order) unmarshalObject(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the opening brace
		return fmt.Errorf("order: %w", err)
	}
	out := Order{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return fmt.Errorf("order: %w", err)
		}
		var dir string
		if err := dec.Decode(&dir); err != nil {
			return fmt.Errorf("order of %v: want \"asc\" or \"desc\": %w", key, err)
		}
		out = append(out, OrderItem{Member: key.(string), Direction: dir})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fmt.Errorf("order: %w", err)
	}
	*o = out
	return nil
}

// unmarshalOrderItem reads ["member","desc"], ["member"] or
// {"id":"member","desc":true}.
func unmarshalOrderItem(r json.RawMessage) (OrderItem, error) {
	var pair []string
	if err := json.Unmarshal(r, &pair); err == nil {
		switch len(pair) {
		case 1:
			return OrderItem{Member: pair[0]}, nil
		case 2:
			return OrderItem{Member: pair[0], Direction: pair[1]}, nil
		}
		return OrderItem{}, fmt.Errorf("order item %s: want [member, direction]", r)
	}
	var obj struct {
		ID   string `json:"id"`
		Desc bool   `json:"desc"`
	}
	if err := json.Unmarshal(r, &obj); err != nil || obj.ID == "" {
		return OrderItem{}, errors.New("order item " + string(r) + ": want [member, direction]")
	}
	dir := "asc"
	if obj.Desc {
		dir = "desc"
	}
	return OrderItem{Member: obj.ID, Direction: dir}, nil
}
