package warehouse

import (
	"encoding/json"
	"strconv"
	"strings"
)

// JSONValue is a result value v as it is written into JSON to be read back
// the same by ReadJSONValue: a float64 always with a decimal point or an
// exponent ("2.0", not "2"), so that an integer reads back as an int64 and
// any other number as a float64, whatever the column; arrays element by
// element; anything else as it is.
func JSONValue(v any) any {
	switch v := v.(type) {
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.Number(s)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = JSONValue(e)
		}
		return out
	}
	return v
}

// ReadJSONValue reverses JSONValue on a value decoded with UseNumber:
// json.Number becomes an int64 (written without a decimal point or
// exponent, and in range) or a float64, inside arrays too.
func ReadJSONValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if !strings.ContainsAny(v.String(), ".eE") {
			if n, err := v.Int64(); err == nil {
				return n
			}
		}
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return f
	case []any:
		for i := range v {
			v[i] = ReadJSONValue(v[i])
		}
	}
	return v
}
