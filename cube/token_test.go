package cube

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable time source for Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// parseToken verifies tok as Cube does (HS256 with the secret) at time now.
func parseToken(t *testing.T, tok string, now time.Time) jwt.MapClaims {
	t.Helper()
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return []byte(testSecret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithIssuedAt(), jwt.WithExpirationRequired())
	require.NoError(t, err, "token %q", tok)
	return claims
}

func TestTokenClaims(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	c, err := New(Config{
		APIURL: "http://cube:4000", Secret: testSecret,
		SecurityContext: map[string]any{"tenant": "acme", "exp": float64(now.Add(100 * time.Hour).Unix())},
		Now:             func() time.Time { return now },
	})
	require.NoError(t, err)

	tok, err := c.authToken()
	require.NoError(t, err)
	claims := parseToken(t, tok, now)
	assert.Equal(t, float64(now.Unix()), claims["iat"], "got iat %v, want now", claims["iat"])
	assert.Equal(t, float64(now.Add(time.Hour).Unix()), claims["exp"],
		"got exp %v, want now+1h: the security context must not extend the lifetime", claims["exp"])
	assert.Equal(t, "acme", claims["tenant"], "got tenant %v, want the security context's claim", claims["tenant"])

	_, err = jwt.Parse(tok, func(*jwt.Token) (any, error) { return []byte("other"), nil })
	assert.ErrorIs(t, err, jwt.ErrTokenSignatureInvalid, "a token must not verify under another secret")
}

func TestTokenRefresh(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		elapsed time.Duration
		wantNew bool
	}{
		{name: "fresh token reused", elapsed: time.Minute, wantNew: false},
		{name: "exactly 5 minutes left reused", elapsed: 55 * time.Minute, wantNew: false},
		{name: "under 5 minutes left re-signed", elapsed: 55*time.Minute + time.Second, wantNew: true},
		{name: "expired re-signed", elapsed: 2 * time.Hour, wantNew: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
			c, err := New(Config{APIURL: "http://cube:4000", Secret: testSecret, Now: clk.Now})
			require.NoError(t, err)
			first, err := c.authToken()
			require.NoError(t, err)

			clk.advance(tt.elapsed)
			second, err := c.authToken()
			require.NoError(t, err)
			if !tt.wantNew {
				assert.Equal(t, first, second, "got a new token after %s, want the first reused", tt.elapsed)
				return
			}
			assert.NotEqual(t, first, second, "got the first token after %s, want a new one", tt.elapsed)
			claims := parseToken(t, second, clk.Now())
			assert.Equal(t, float64(clk.Now().Add(time.Hour).Unix()), claims["exp"], "got exp %v, want an hour from the refresh", claims["exp"])
		})
	}
}

func TestTokenSentRaw(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("meta", ok(`{"cubes":[]}`))
	clk := &clock{now: time.Now()}
	c := f.client(func(cfg *Config) { cfg.Now = clk.Now })

	_, err := c.Meta(t.Context())
	require.NoError(t, err)
	_, err = c.Meta(t.Context())
	require.NoError(t, err)
	clk.advance(56 * time.Minute)
	_, err = c.Meta(t.Context())
	require.NoError(t, err, "the refreshed token must still be accepted")

	calls := f.calls()
	require.Len(t, calls, 3)
	assert.NotContains(t, calls[0].auth, "Bearer", "got %q, want the raw token every Cube version accepts", calls[0].auth)
	assert.Equal(t, calls[0].auth, calls[1].auth, "got a new token for the second call, want it reused")
	assert.NotEqual(t, calls[1].auth, calls[2].auth, "got the old token with 4 minutes left, want a new one")
}

// A request made for someone carries them in its own token, next to the
// configured security context, which they cannot override; requests made
// for no one keep the shared token.
func TestTokenWithClaims(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	c, err := New(Config{
		APIURL: "http://cube:4000", Secret: testSecret,
		SecurityContext: map[string]any{"tenant": "acme"},
		Now:             func() time.Time { return now },
	})
	require.NoError(t, err)

	ctx := WithClaims(context.Background(), map[string]any{
		"analyticsbot": map[string]any{"user_email": "ana@example.com"},
		"tenant":       "evil", "exp": float64(now.Add(100 * time.Hour).Unix()),
	})
	tok, err := c.requestToken(ctx)
	require.NoError(t, err)
	claims := parseToken(t, tok, now)
	assert.Equal(t, map[string]any{"user_email": "ana@example.com"}, claims["analyticsbot"], "who the request is for")
	assert.Equal(t, "acme", claims["tenant"], "the configured context wins")
	assert.Equal(t, float64(now.Add(time.Hour).Unix()), claims["exp"], "the lifetime is the bot's")

	shared, err := c.requestToken(context.Background())
	require.NoError(t, err)
	again, err := c.authToken()
	require.NoError(t, err)
	assert.Equal(t, again, shared, "no claims: the shared token")
	assert.NotContains(t, parseToken(t, shared, now), "analyticsbot")
}
