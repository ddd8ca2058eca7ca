package mcpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/bot"
)

// maxRequestBody bounds an HTTP request's body: a question or a query is
// at most tens of kilobytes (the tools' schemas bound them).
const maxRequestBody = 1 << 20

// Handler is the streamable-HTTP endpoint of b's MCP server (serve mounts
// it on /mcp). Every request needs one of tokens' bearer secrets and asks
// as the user it maps to (the access file's named tokens, "token:<name>";
// HTTP_TOKEN's, "web"); without one, or with none configured, it is
// refused with 401: no identity, no tools. The server is stateless: each
// request is whole on its own, so any serve process answers it.
func Handler(b *bot.Bot, cfg Config, tokens map[string]string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	s := New(b, cfg, "", log)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: s.log, MaxRequestBodyBytes: maxRequestBody,
			// The SDK refuses a loopback connection naming another host,
			// against DNS rebinding; that is also every reverse proxy on
			// the same machine that passes the Host on. A rebinding page
			// cannot send a bearer token it does not know, and every
			// request here needs one (as the web API, web.CheckAddr).
			DisableLocalhostProtection: true})
	if len(tokens) == 0 {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="analyticsbot"`)
			http.Error(w, "the MCP endpoint answers only requests with a token, and none is configured: "+
				"set HTTP_TOKEN or the access file's named tokens (docs/mcp.md)", http.StatusUnauthorized)
		})
	}
	return sameOrigin(log,
		auth.RequireBearerToken(verifier(tokens), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h))
}

// sameOrigin refuses, with 403, a request a browser sends from another
// site's page, whatever its method, as the MCP specification asks of
// servers; MCP clients, which send neither Sec-Fetch-Site nor Origin, and
// the server's own origin pass. (A DNS-rebinding page is of its own name's
// origin: the bearer token, which it cannot know, stops it.)
// http.CrossOriginProtection is not enough: it lets GET, HEAD and OPTIONS
// through as safe methods, while what a method does here is the SDK's to
// decide (a stateful server's GET opens a stream, its DELETE ends a
// session).
func sameOrigin(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fromAnotherSite(r) {
			log.WarnContext(r.Context(), "MCP request refused: from another site's page", "method", r.Method, "host", r.Host,
				"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
			http.Error(w, "requests from another site's page are refused: MCP clients call this endpoint directly", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// fromAnotherSite reports whether a browser sent r from a page of another
// origin than the server's: its Sec-Fetch-Site says so (anything but
// same-origin, or none for what the user typed), or, from a browser that
// sends no Sec-Fetch-Site, its Origin names another host than the
// request's (an unreadable Origin, such as a sandboxed page's "null",
// included). A request with neither header is no browser's page's.
func fromAnotherSite(r *http.Request) bool {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "same-origin", "none":
		return false
	case "":
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host != r.Host
}

// verifier maps a bearer secret to its user, comparing it with every
// known one in constant time (as the web API does), so the time taken says
// nothing about any of them.
func verifier(tokens map[string]string) auth.TokenVerifier {
	type known struct {
		hash [sha256.Size]byte
		user string
	}
	var all []known
	for secret, user := range tokens {
		all = append(all, known{sha256.Sum256([]byte(secret)), user})
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		got := sha256.Sum256([]byte(token))
		user := ""
		for _, k := range all {
			if subtle.ConstantTimeCompare(got[:], k.hash[:]) == 1 {
				user = k.user
			}
		}
		if user == "" {
			return nil, fmt.Errorf("%w: not a token of this server", auth.ErrInvalidToken)
		}
		// UserID also binds a session to its user, were one kept.
		return &auth.TokenInfo{UserID: user}, nil
	}
}
