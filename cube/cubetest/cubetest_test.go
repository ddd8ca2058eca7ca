package cubetest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube/cubetest"
)

// TestStart starts Cube on the demo data and checks what a client sees: the model's cubes in
// /meta, the game count from /load, and tokens checked against the server's own secret.
func TestStart(t *testing.T) {
	t.Parallel()
	_, s := demoCube(t)

	require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:") && strings.HasSuffix(s.URL, "/cubejs-api/v1"),
		"URL: got %q, want http://127.0.0.1:<port>/cubejs-api/v1", s.URL)
	require.NotEmpty(t, s.Secret)
	assert.Contains(t, s.Log(), "Cube API server (0.33.65) is listening", "server log")

	cubes := getMeta(t, s)
	var names []string
	for _, c := range cubes {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	// The link cubes other than AppTags are public: false, so /meta leaves them out.
	want := []string{"AppTags", "Apps", "Categories", "Developers", "Genres", "Platforms", "Publishers", "Tags"}
	assert.Equal(t, want, names, "cubes in /meta")

	i := slices.IndexFunc(cubes, func(c metaCube) bool { return c.Name == "Apps" })
	require.GreaterOrEqual(t, i, 0, "Apps cube missing from /meta")
	apps := cubes[i]
	assert.Equal(t, "Games", apps.Title, "Apps title")
	assert.True(t, slices.ContainsFunc(apps.Measures, func(m metaMember) bool { return m.Name == "Apps.count" }),
		"Apps.count missing from /meta measures %v", apps.Measures)

	rows := load(t, s, `{"measures":["Apps.count"]}`)
	require.Len(t, rows, 1, "rows for Apps.count")
	assert.Equal(t, "27075", text(rows[0]["Apps.count"]), "Apps.count")

	tokens := []struct {
		name  string
		token string
		want  int
	}{
		{name: "own secret", token: s.Token(), want: http.StatusOK},
		{name: "other secret", token: cubetest.Token("not-" + s.Secret), want: http.StatusForbidden},
		{name: "no token", token: "", want: http.StatusForbidden},
	}
	for _, tt := range tokens {
		t.Run("token/"+tt.name, func(t *testing.T) {
			status, body := call(t, s, http.MethodGet, "/meta", nil, tt.token)
			assert.Equal(t, tt.want, status, "GET /meta status: got %d, want %d (%.200s)", status, tt.want, body)
		})
	}
}
