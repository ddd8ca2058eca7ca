package cubetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// demoCube gives the test its own database with the demo data loaded and a Cube server on it.
func demoCube(t *testing.T) (*store.DB, *cubetest.Server) {
	t.Helper()
	db, dbURL := storetest.NewWithURL(t)
	// Cube reads the database only when queried, so it starts before the load; without an
	// install the test skips here, before paying for the load.
	s := cubetest.Start(t, dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := demo.Load(ctx, db.Pool(), demo.Options{}); err != nil {
		t.Fatalf("load demo data: %v", err)
	}
	return db, s
}

// metaCube is the part of a /meta cube the tests look at.
type metaCube struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Measures    []metaMember `json:"measures"`
	Dimensions  []metaMember `json:"dimensions"`
	Segments    []metaMember `json:"segments"`
}

type metaMember struct {
	Name        string `json:"name"`
	ShortTitle  string `json:"shortTitle"`
	Description string `json:"description"`
	Type        string `json:"type"`
}

// getMeta fetches /meta.
func getMeta(t *testing.T, s *cubetest.Server) []metaCube {
	t.Helper()
	var meta struct {
		Cubes []metaCube `json:"cubes"`
	}
	status, body := call(t, s, http.MethodGet, "/meta", nil, s.Token())
	require.Equal(t, http.StatusOK, status, "GET /meta: %s", body)
	require.NoError(t, json.Unmarshal(body, &meta), "GET /meta: %s", body)
	return meta.Cubes
}

// load runs a /load query and returns its rows, with numbers as json.Number. Cube answers a
// query still running after a few seconds with {"error": "Continue wait"}; the client asks again.
func load(t *testing.T, s *cubetest.Server, query string) []map[string]any {
	t.Helper()
	body := []byte(`{"query":` + query + `}`)
	deadline := time.Now().Add(time.Minute)
	for {
		status, resp := call(t, s, http.MethodPost, "/load", body, s.Token())
		var out struct {
			Data  []map[string]any `json:"data"`
			Error string           `json:"error"`
		}
		dec := json.NewDecoder(bytes.NewReader(resp))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&out), "POST /load %s: %s", query, resp)
		if out.Error == "Continue wait" && time.Now().Before(deadline) {
			continue
		}
		require.Equal(t, http.StatusOK, status, "POST /load %s: %s", query, resp)
		require.Empty(t, out.Error, "POST /load %s", query)
		return out.Data
	}
}

// call sends one request to the API and returns the status and body.
func call(t *testing.T, s *cubetest.Server, method, path string, body []byte, token string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "%s %s", method, path)
	return resp.StatusCode, b
}

// text renders a value from Cube's JSON the way Postgres prints it as text. Cube returns bigint
// and numeric values as JSON strings, integer and float values as numbers, booleans as booleans.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case json.Number:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}
