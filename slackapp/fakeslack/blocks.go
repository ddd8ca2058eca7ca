package fakeslack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Block Kit limits Slack documents and enforces on chat.postMessage and
// chat.update. Lengths are in characters.
const (
	maxMessageText   = 40000
	maxBlocks        = 50
	maxBlockID       = 255
	maxSectionText   = 3000
	maxSectionFields = 10
	maxFieldText     = 2000
	maxHeaderText    = 150
	maxContextElems  = 10
	maxActionElems   = 25
	maxActionID      = 255
	maxButtonText    = 75
	maxButtonValue   = 2000
	maxButtonURL     = 3000
	maxTableRows     = 100
	maxTableCells    = 20
	// data_table: a raw_text header and 1–100 rows of 1–20 cells each,
	// every row as wide as the header; a page holds 1–100 rows.
	maxDataTableRows = 101
	maxPageSize      = 100
	maxMarkdownText  = 12000
)

// blockTypes are the layout blocks apps may send.
var blockTypes = map[string]func(c *checker, b obj, ptr string){
	"actions":            checkActions,
	"call":               nil,
	"context":            checkContext,
	"context_actions":    checkContextActions,
	"data_table":         checkDataTable,
	"data_visualization": checkDataVisualization,
	"divider":            nil,
	"file":               nil,
	"header":             checkHeader,
	"image":              nil,
	"input":              nil,
	"markdown":           checkMarkdown,
	"rich_text":          checkRichText,
	"section":            checkSection,
	"table":              checkTable,
	"video":              nil,
}

// obj is a decoded JSON object whose values are decoded on demand.
type obj map[string]json.RawMessage

// checker collects problems in Slack's "what [json-pointer:/path]" form.
type checker struct {
	problems []string
	blockIDs map[string]bool
	tables   int
	charts   int
}

func (c *checker) failf(ptr, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...)+" [json-pointer:"+ptr+"]")
}

// validateBlocks checks a message's blocks JSON the way Slack does and
// returns what is wrong, nil when Slack would accept it.
func validateBlocks(raw []byte) []string {
	c := &checker{blockIDs: map[string]bool{}}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		c.failf("/blocks", "must be a JSON array")
		return c.problems
	}
	if len(blocks) > maxBlocks {
		c.failf("/blocks", "must provide an array with no more than %d items", maxBlocks)
	}
	for i, rb := range blocks {
		c.checkBlock(rb, fmt.Sprintf("/blocks/%d", i))
	}
	if c.tables > 1 {
		c.failf("/blocks", "only one table block is allowed per message")
	}
	if c.charts > maxCharts {
		c.failf("/blocks", "no more than %d data_visualization blocks are allowed per message", maxCharts)
	}
	return c.problems
}

func (c *checker) checkBlock(raw json.RawMessage, ptr string) {
	var b obj
	if err := json.Unmarshal(raw, &b); err != nil || b == nil {
		c.failf(ptr, "must be an object")
		return
	}
	typ, isString := b.str("type")
	if !isString {
		c.failf(ptr+"/type", "must provide a string")
		return
	}
	check, known := blockTypes[typ]
	if !known {
		c.failf(ptr+"/type", "unknown block type %q", typ)
		return
	}
	if _, present := b["block_id"]; present {
		id, isString := b.str("block_id")
		switch {
		case !isString:
			c.failf(ptr+"/block_id", "must provide a string")
		case runeLen(id) > maxBlockID:
			c.failf(ptr+"/block_id", "must be less than %d characters", maxBlockID+1)
		case c.blockIDs[id]:
			c.failf(ptr+"/block_id", "duplicate block_id %q", id)
		}
		c.blockIDs[id] = true
	}
	if check != nil {
		check(c, b, ptr)
	}
}

func checkSection(c *checker, b obj, ptr string) {
	_, hasText := b["text"]
	fields, hasFields := b.array("fields")
	if !hasText && !hasFields {
		c.failf(ptr, "must provide text or fields")
	}
	if hasText {
		c.textObject(b["text"], ptr+"/text", maxSectionText, true)
	}
	if len(fields) > maxSectionFields {
		c.failf(ptr+"/fields", "must provide an array with no more than %d items", maxSectionFields)
	}
	for i, f := range fields {
		c.textObject(f, fmt.Sprintf("%s/fields/%d", ptr, i), maxFieldText, true)
	}
	if acc, present := b["accessory"]; present {
		c.element(acc, ptr+"/accessory", map[string]bool{})
	}
}

func checkHeader(c *checker, b obj, ptr string) {
	c.textObject(b["text"], ptr+"/text", maxHeaderText, false)
}

func checkContext(c *checker, b obj, ptr string) {
	elems, isArray := b.array("elements")
	switch {
	case !isArray || len(elems) == 0:
		c.failf(ptr+"/elements", "must provide a non-empty array")
	case len(elems) > maxContextElems:
		c.failf(ptr+"/elements", "must provide an array with no more than %d items", maxContextElems)
	}
	for i, e := range elems {
		ep := fmt.Sprintf("%s/elements/%d", ptr, i)
		var eo obj
		if json.Unmarshal(e, &eo) != nil || eo == nil {
			c.failf(ep, "must be an object")
			continue
		}
		if typ, _ := eo.str("type"); typ != "image" {
			c.textObject(e, ep, maxSectionText, true)
		}
	}
}

func checkActions(c *checker, b obj, ptr string) {
	elems, isArray := b.array("elements")
	switch {
	case !isArray || len(elems) == 0:
		c.failf(ptr+"/elements", "must provide a non-empty array")
	case len(elems) > maxActionElems:
		c.failf(ptr+"/elements", "must provide an array with no more than %d items", maxActionElems)
	}
	actionIDs := map[string]bool{}
	for i, e := range elems {
		c.element(e, fmt.Sprintf("%s/elements/%d", ptr, i), actionIDs)
	}
}

// element checks an interactive element; actionIDs are those already used
// in the same block.
func (c *checker) element(raw json.RawMessage, ptr string, actionIDs map[string]bool) {
	var e obj
	if json.Unmarshal(raw, &e) != nil || e == nil {
		c.failf(ptr, "must be an object")
		return
	}
	typ, isString := e.str("type")
	if !isString || typ == "" {
		c.failf(ptr+"/type", "must provide a string")
		return
	}
	if id, present := e.str("action_id"); present {
		switch {
		case runeLen(id) > maxActionID:
			c.failf(ptr+"/action_id", "must be less than %d characters", maxActionID+1)
		case actionIDs[id]:
			c.failf(ptr+"/action_id", "duplicate action_id %q", id)
		}
		actionIDs[id] = true
	}
	if typ != "button" {
		return
	}
	c.textObject(e["text"], ptr+"/text", maxButtonText, false)
	if v, present := e.str("value"); present && runeLen(v) > maxButtonValue {
		c.failf(ptr+"/value", "must be less than %d characters", maxButtonValue+1)
	}
	if u, present := e.str("url"); present && runeLen(u) > maxButtonURL {
		c.failf(ptr+"/url", "must be less than %d characters", maxButtonURL+1)
	}
}

// maxContextActionElems bounds a context_actions block's elements.
const maxContextActionElems = 5

// checkContextActions checks a context_actions block: feedback buttons and
// icon buttons only, each feedback button with plain text and a value.
func checkContextActions(c *checker, b obj, ptr string) {
	elems, isArray := b.array("elements")
	switch {
	case !isArray || len(elems) == 0:
		c.failf(ptr+"/elements", "must provide a non-empty array")
	case len(elems) > maxContextActionElems:
		c.failf(ptr+"/elements", "must provide an array with no more than %d items", maxContextActionElems)
	}
	actionIDs := map[string]bool{}
	for i, raw := range elems {
		ep := fmt.Sprintf("%s/elements/%d", ptr, i)
		var e obj
		if json.Unmarshal(raw, &e) != nil || e == nil {
			c.failf(ep, "must be an object")
			continue
		}
		typ, _ := e.str("type")
		if typ != "feedback_buttons" && typ != "icon_button" {
			c.failf(ep+"/type", "must be one of feedback_buttons, icon_button")
			continue
		}
		c.element(raw, ep, actionIDs)
		if typ != "feedback_buttons" {
			continue
		}
		for _, side := range []string{"positive_button", "negative_button"} {
			var btn obj
			if json.Unmarshal(e[side], &btn) != nil || btn == nil {
				c.failf(ep+"/"+side, "must provide an object")
				continue
			}
			c.textObject(btn["text"], ep+"/"+side+"/text", maxButtonText, false)
			v, present := btn.str("value")
			switch {
			case !present:
				c.failf(ep+"/"+side+"/value", "must provide a string")
			case runeLen(v) > maxButtonValue:
				c.failf(ep+"/"+side+"/value", "must be less than %d characters", maxButtonValue+1)
			}
			if l, present := btn.str("accessibility_label"); present && runeLen(l) > maxButtonText {
				c.failf(ep+"/"+side+"/accessibility_label", "must be less than %d characters", maxButtonText+1)
			}
		}
	}
}

// Slack's limits for data_visualization blocks.
const (
	maxCharts         = 2
	maxChartTitle     = 50
	maxChartLabel     = 20
	maxChartAxisLabel = 50
	maxChartPoints    = 20
	maxChartSeries    = 6
	maxPieSegments    = 6
)

// checkDataVisualization checks a chart as Slack does: a title, a pie of 1
// to 6 segments with values above zero, or a bar, area or line chart of 1
// to 6 uniquely named series over at most 20 categories, each series with
// exactly one point per category.
func checkDataVisualization(c *checker, b obj, ptr string) {
	c.charts++
	switch title, ok := b.str("title"); {
	case !ok || title == "":
		c.failf(ptr+"/title", "must provide a non-empty string")
	case runeLen(title) > maxChartTitle:
		c.failf(ptr+"/title", "must be less than %d characters", maxChartTitle+1)
	}
	var chart obj
	if json.Unmarshal(b["chart"], &chart) != nil || chart == nil {
		c.failf(ptr+"/chart", "must provide an object")
		return
	}
	ptr += "/chart"
	typ, _ := chart.str("type")
	if typ == "pie" {
		segments, _ := chart.array("segments")
		if len(segments) == 0 || len(segments) > maxPieSegments {
			c.failf(ptr+"/segments", "must provide an array of 1 to %d items", maxPieSegments)
		}
		for i, raw := range segments {
			var seg struct {
				Label *string  `json:"label"`
				Value *float64 `json:"value"`
			}
			sp := fmt.Sprintf("%s/segments/%d", ptr, i)
			if json.Unmarshal(raw, &seg) != nil || seg.Label == nil || seg.Value == nil {
				c.failf(sp, "must provide a label and a value")
				continue
			}
			if *seg.Label == "" || runeLen(*seg.Label) > maxChartLabel {
				c.failf(sp+"/label", "must be 1 to %d characters", maxChartLabel)
			}
			if *seg.Value <= 0 {
				c.failf(sp+"/value", "must be greater than 0")
			}
		}
		return
	}
	if typ != "bar" && typ != "area" && typ != "line" {
		c.failf(ptr+"/type", "must be one of pie, bar, area, line")
		return
	}
	var axis struct {
		Categories []string `json:"categories"`
		XLabel     string   `json:"x_label"`
		YLabel     string   `json:"y_label"`
	}
	if json.Unmarshal(chart["axis_config"], &axis) != nil {
		c.failf(ptr+"/axis_config", "must provide an object")
		return
	}
	if len(axis.Categories) == 0 || len(axis.Categories) > maxChartPoints {
		c.failf(ptr+"/axis_config/categories", "must provide an array of 1 to %d items", maxChartPoints)
	}
	categories := map[string]bool{}
	for i, cat := range axis.Categories {
		if cat == "" || runeLen(cat) > maxChartLabel {
			c.failf(fmt.Sprintf("%s/axis_config/categories/%d", ptr, i), "must be 1 to %d characters", maxChartLabel)
		}
		if categories[cat] {
			c.failf(fmt.Sprintf("%s/axis_config/categories/%d", ptr, i), "duplicate category %q", cat)
		}
		categories[cat] = true
	}
	for _, l := range []struct{ name, v string }{{"x_label", axis.XLabel}, {"y_label", axis.YLabel}} {
		if runeLen(l.v) > maxChartAxisLabel {
			c.failf(ptr+"/axis_config/"+l.name, "must be less than %d characters", maxChartAxisLabel+1)
		}
	}
	series, _ := chart.array("series")
	if len(series) == 0 || len(series) > maxChartSeries {
		c.failf(ptr+"/series", "must provide an array of 1 to %d items", maxChartSeries)
	}
	names := map[string]bool{}
	for i, raw := range series {
		sp := fmt.Sprintf("%s/series/%d", ptr, i)
		var ser struct {
			Name string `json:"name"`
			Data []struct {
				Label string   `json:"label"`
				Value *float64 `json:"value"`
			} `json:"data"`
		}
		if json.Unmarshal(raw, &ser) != nil {
			c.failf(sp, "must be an object")
			continue
		}
		if ser.Name == "" || runeLen(ser.Name) > maxChartLabel || names[ser.Name] {
			c.failf(sp+"/name", "must be a unique name of 1 to %d characters", maxChartLabel)
		}
		names[ser.Name] = true
		seen := map[string]bool{}
		for j, p := range ser.Data {
			if !categories[p.Label] || seen[p.Label] || p.Value == nil {
				c.failf(fmt.Sprintf("%s/data/%d", sp, j), "must be one value for one of the categories")
			}
			seen[p.Label] = true
		}
		if len(seen) != len(categories) {
			c.failf(sp+"/data", "must provide one value for every category")
		}
	}
}

func checkTable(c *checker, b obj, ptr string) {
	c.tables++
	rows, isArray := b.array("rows")
	switch {
	case !isArray || len(rows) == 0:
		c.failf(ptr+"/rows", "must provide a non-empty array")
	case len(rows) > maxTableRows:
		c.failf(ptr+"/rows", "must provide an array with no more than %d items", maxTableRows)
	}
	for r, rawRow := range rows {
		rp := fmt.Sprintf("%s/rows/%d", ptr, r)
		var cells []json.RawMessage
		if json.Unmarshal(rawRow, &cells) != nil || len(cells) == 0 {
			c.failf(rp, "must provide a non-empty array of cells")
			continue
		}
		if len(cells) > maxTableCells {
			c.failf(rp, "must provide an array with no more than %d items", maxTableCells)
		}
		for i, cell := range cells {
			c.tableCell(cell, fmt.Sprintf("%s/%d", rp, i))
		}
	}
	if settings, present := b.array("column_settings"); present && len(settings) > maxTableCells {
		c.failf(ptr+"/column_settings", "must provide an array with no more than %d items", maxTableCells)
	}
}

func checkDataTable(c *checker, b obj, ptr string) {
	c.tables++
	if caption, isString := b.str("caption"); !isString || strings.TrimSpace(caption) == "" {
		c.failf(ptr+"/caption", "must provide a non-empty string")
	}
	if _, present := b["page_size"]; present {
		var size float64
		if json.Unmarshal(b["page_size"], &size) != nil || size < 1 || size > maxPageSize || size != float64(int(size)) {
			c.failf(ptr+"/page_size", "must be an integer from 1 to %d", maxPageSize)
		}
	}
	rows, isArray := b.array("rows")
	switch {
	case !isArray || len(rows) < 2:
		c.failf(ptr+"/rows", "must provide an array with at least 2 items (a header and a row)")
	case len(rows) > maxDataTableRows:
		c.failf(ptr+"/rows", "must provide an array with no more than %d items", maxDataTableRows)
	}
	width := -1
	for r, rawRow := range rows {
		rp := fmt.Sprintf("%s/rows/%d", ptr, r)
		var cells []json.RawMessage
		if json.Unmarshal(rawRow, &cells) != nil || len(cells) == 0 {
			c.failf(rp, "must provide a non-empty array of cells")
			continue
		}
		if len(cells) > maxTableCells {
			c.failf(rp, "must provide an array with no more than %d items", maxTableCells)
		}
		if width < 0 {
			width = len(cells)
		} else if len(cells) != width {
			c.failf(rp, "must have as many cells as the header row (%d)", width)
		}
		for i, raw := range cells {
			cp := fmt.Sprintf("%s/%d", rp, i)
			var cell obj
			if json.Unmarshal(raw, &cell) != nil || cell == nil {
				c.failf(cp, "must be an object")
				continue
			}
			typ, _ := cell.str("type")
			if r == 0 && typ != "raw_text" {
				c.failf(cp+"/type", "header cells must be raw_text, not %q", typ)
				continue
			}
			switch typ {
			case "raw_text":
				if _, isString := cell.str("text"); !isString {
					c.failf(cp+"/text", "must provide a string")
				}
			case "raw_number":
				var v float64
				if json.Unmarshal(cell["value"], &v) != nil {
					c.failf(cp+"/value", "must provide a number")
				}
			case "rich_text":
				if _, isArray := cell.array("elements"); !isArray {
					c.failf(cp+"/elements", "must provide an array")
				}
			case "action_cell":
				c.element(cell["element"], cp+"/element", map[string]bool{})
			default:
				c.failf(cp+"/type", "must be raw_text, raw_number, rich_text or action_cell, not %q", typ)
			}
		}
	}
	if idx, present := b["row_header_column_index"]; present {
		var i float64
		if json.Unmarshal(idx, &i) != nil || i < 0 || (width > 0 && int(i) >= width) {
			c.failf(ptr+"/row_header_column_index", "must be the index of a column")
		}
	}
}

func (c *checker) tableCell(raw json.RawMessage, ptr string) {
	var cell obj
	if json.Unmarshal(raw, &cell) != nil || cell == nil {
		c.failf(ptr, "must be an object")
		return
	}
	switch typ, _ := cell.str("type"); typ {
	case "raw_text":
		if _, isString := cell.str("text"); !isString {
			c.failf(ptr+"/text", "must provide a string")
		}
	case "rich_text":
		if _, isArray := cell.array("elements"); !isArray {
			c.failf(ptr+"/elements", "must provide an array")
		}
	default:
		c.failf(ptr+"/type", "must be raw_text or rich_text, not %q", typ)
	}
}

func checkRichText(c *checker, b obj, ptr string) {
	if _, isArray := b.array("elements"); !isArray {
		c.failf(ptr+"/elements", "must provide an array")
	}
}

func checkMarkdown(c *checker, b obj, ptr string) {
	text, isString := b.str("text")
	switch {
	case !isString || text == "":
		c.failf(ptr+"/text", "must provide a non-empty string")
	case runeLen(text) > maxMarkdownText:
		c.failf(ptr+"/text", "must be less than %d characters", maxMarkdownText+1)
	}
}

// textObject checks a composition text object: plain_text (or mrkdwn when
// allowed) with 1 to limit characters.
func (c *checker) textObject(raw json.RawMessage, ptr string, limit int, mrkdwnOK bool) {
	var t obj
	if json.Unmarshal(raw, &t) != nil || t == nil {
		c.failf(ptr, "must provide an object")
		return
	}
	switch typ, _ := t.str("type"); {
	case typ == "plain_text", typ == "mrkdwn" && mrkdwnOK:
	default:
		c.failf(ptr+"/type", "must be a valid enum value, not %q", typ)
	}
	text, isString := t.str("text")
	switch {
	case !isString:
		c.failf(ptr+"/text", "must provide a string")
	case text == "":
		c.failf(ptr+"/text", "must be more than 0 characters")
	case runeLen(text) > limit:
		c.failf(ptr+"/text", "must be less than %d characters", limit+1)
	}
}

// str returns the string at key and whether it is present and a string.
func (o obj) str(key string) (string, bool) {
	raw, present := o[key]
	if !present {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// array returns the array at key and whether it is present and an array.
func (o obj) array(key string) ([]json.RawMessage, bool) {
	raw, present := o[key]
	if !present {
		return nil, false
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil || a == nil {
		return nil, false
	}
	return a, true
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// blockTexts walks the JSON in document order and collects every string
// value of a "text" field.
func blockTexts(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	type frame struct {
		object    bool
		expectKey bool
		key       string
	}
	var (
		out   []string
		stack []frame
	)
	dec := json.NewDecoder(bytes.NewReader(raw))
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil { // io.EOF at the end, or JSON that is not valid
			return out
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		if top != nil && top.object && top.expectKey {
			if key, isKey := tok.(string); isKey {
				top.key, top.expectKey = key, false
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, expectKey: true})
			case '[':
				stack = append(stack, frame{})
			default: // '}' or ']'
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if top != nil && top.object && top.key == "text" {
				out = append(out, v)
			}
			valueDone()
		default:
			valueDone()
		}
	}
}
