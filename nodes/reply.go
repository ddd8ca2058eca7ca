package nodes

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

var errNoJSON = errors.New("no JSON object in the reply")

// decodeJSON reads the first JSON object in a model reply into v. Models
// wrap JSON in prose or code fences, so the outermost braces are taken.
func decodeJSON(reply string, v any) error {
	start := strings.Index(reply, "{")
	end := strings.LastIndex(reply, "}")
	if start < 0 || end < start {
		return errNoJSON
	}
	return json.Unmarshal([]byte(reply[start:end+1]), v)
}

// sqlReply is the generator's reply.
type sqlReply struct {
	SQL         string   `json:"sql"`
	Assumptions []string `json:"assumptions"`
	Explanation string   `json:"explanation"`
}

var (
	fencedSQL = regexp.MustCompile("(?s)```(?:sql|SQL|postgresql|postgres)?\\s*\\n(.*?)```")
	// A bare statement starts a line (any case), or is an upper-case SELECT
	// inside a sentence; WITH must open a CTE, so prose "with" is no SQL.
	bareSQL = regexp.MustCompile(`(?ims)^\s*(?:SELECT\s|WITH\s+(?:RECURSIVE\s+)?[\w"]+\s*(?:\([^)]*\))?\s*AS\b).*|(?-i)\bSELECT\s.*`)
)

// parseSQLReply reads the generator's reply: JSON first, then a fenced
// ```sql block, then a bare SELECT/WITH statement.
func parseSQLReply(reply string) (sqlReply, bool) {
	var r sqlReply
	if err := decodeJSON(reply, &r); err == nil && strings.TrimSpace(r.SQL) != "" {
		r.SQL = cleanSQL(r.SQL)
		return r, true
	}
	if m := fencedSQL.FindStringSubmatch(reply); m != nil && strings.TrimSpace(m[1]) != "" {
		return sqlReply{SQL: cleanSQL(m[1])}, true
	}
	if m := bareSQL.FindString(reply); m != "" {
		return sqlReply{SQL: cleanSQL(m)}, true
	}
	return sqlReply{}, false
}

// cleanSQL trims white space and a trailing semicolon, which the validator
// would otherwise count for nothing and the LIMIT clamp would trip on.
func cleanSQL(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasSuffix(sql, ";") {
		sql = strings.TrimSpace(strings.TrimSuffix(sql, ";"))
	}
	return sql
}
