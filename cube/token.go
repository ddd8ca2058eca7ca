package cube

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// tokenLifetime is how long a signed token is valid; tokenRefresh is how much
// of it must remain for the token to be reused, so a token never expires
// between being read here and being checked by Cube, even on a slow poll.
const (
	tokenLifetime = time.Hour
	tokenRefresh  = 5 * time.Minute
)

type claimsKey struct{}

// WithClaims returns ctx whose requests carry claims in their token's
// security context, next to the configured one (which they cannot
// override): who the request is made for, so that Cube's queryRewrite can
// scope rows. Such requests get a token of their own.
func WithClaims(ctx context.Context, claims map[string]any) context.Context {
	return context.WithValue(ctx, claimsKey{}, claims)
}

// requestToken is the token of a request made with ctx: the shared one,
// or one signed for the claims ctx carries.
func (c *Client) requestToken(ctx context.Context) (string, error) {
	extra, _ := ctx.Value(claimsKey{}).(map[string]any)
	if len(extra) == 0 {
		return c.authToken()
	}
	claims := jwt.MapClaims{}
	maps.Copy(claims, extra)
	maps.Copy(claims, c.cfg.SecurityContext)
	now := c.cfg.Now()
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(tokenLifetime).Unix()
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(c.cfg.Secret))
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return signed, nil
}

// authToken returns the current token, signing a new one when none exists
// or less than tokenRefresh of its lifetime remains.
func (c *Client) authToken() (string, error) {
	c.tokenMu.Lock()
	defer c.tokenMu.Unlock()
	now := c.cfg.Now()
	if c.token != "" && c.expires.Sub(now) >= tokenRefresh {
		return c.token, nil
	}
	claims := jwt.MapClaims{}
	maps.Copy(claims, c.cfg.SecurityContext)
	// Set after the security context so it cannot extend the lifetime.
	expires := now.Add(tokenLifetime)
	claims["iat"] = now.Unix()
	claims["exp"] = expires.Unix()
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(c.cfg.Secret))
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	c.token, c.expires = signed, expires
	return signed, nil
}
