// Package cube is a client of the Cube semantic layer's REST API: it signs
// the JWT, reads the data model (/meta), validates and normalises the queries
// the model writes (Normalize), runs them (/load, polling while Cube answers
// "Continue wait") and shows the SQL Cube generated (/sql).
//
// It keeps to the part of the API that Cube 0.33 and 1.x share: GET
// /cubejs-api/v1/meta and POST /cubejs-api/v1/load and /sql with a body
// {"query": {...}}, the raw token in the Authorization header, one query per
// request (no blending), the filter operators both accept, and data values
// read whether Cube sends a number as a string (numeric, bigint) or as a
// JSON number (integer).
package cube
