package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// CheckAddr refuses an HTTP_ADDR the web chat must not serve: without a
// token (HTTP_TOKEN or the access file's named ones: protected), only a
// loopback address, since whoever reaches the API can read every answer
// the data gives.
func CheckAddr(addr string, protected bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("HTTP_ADDR %q is not host:port: %w", addr, err)
	}
	if protected || loopbackHost(host) {
		return nil
	}
	return fmt.Errorf("HTTP_ADDR %s is not a loopback address and neither HTTP_TOKEN nor a named token in ACCESS_FILE is set: "+
		"set HTTP_TOKEN to a secret (the web chat asks for it once), name tokens in ACCESS_FILE, or listen on 127.0.0.1", addr)
}

// loopbackHost reports whether host names this machine only: "localhost"
// (and its subdomains, RFC 6761) or a loopback IP. An empty host means
// every interface.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// guard admits the API requests this server may answer. With a token,
// the ones that carry it. Without one, the server trusts whoever reaches
// it, so it makes sure that is a page of its own on this machine: the
// Host must be a loopback name (a DNS-rebinding site has its own name
// there) and a browser's Origin must be the server itself (another site's
// page may send requests, never read them, but they would still run).
func (s *server) guard(next http.Handler) http.Handler {
	type known struct {
		hash [sha256.Size]byte
		user string
	}
	var tokens []known
	if s.cfg.Token != "" {
		tokens = append(tokens, known{sha256.Sum256([]byte(s.cfg.Token)), webUser})
	}
	for secret, user := range s.cfg.Tokens {
		tokens = append(tokens, known{sha256.Sum256([]byte(secret)), user})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(tokens) > 0 {
			// Hashes have one length, and every token is compared, so the
			// time taken says nothing about any of them.
			got := sha256.Sum256([]byte(bearer(r)))
			user := ""
			for _, k := range tokens {
				if subtle.ConstantTimeCompare(got[:], k.hash[:]) == 1 {
					user = k.user
				}
			}
			if user == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="analyticsbot"`)
				writeError(w, http.StatusUnauthorized, "this server needs an access token: Authorization: Bearer <token>")
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, user))
		} else if why := foreign(r); why != "" {
			s.log.WarnContext(r.Context(), "request refused", "why", why, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, why)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// webUser is the user id of the web chat's requests: HTTP_TOKEN's, or
// anyone's on a server without tokens.
const webUser = "web"

// webChannel is the channel id of every web request: the access file's
// channel lists name it, and the bot knows by it that the thread belongs
// to whoever started it.
const webChannel = "web"

type userKey struct{}

// userOf is who a request asks as: a named token's user, or "web".
func userOf(r *http.Request) string {
	if u, ok := r.Context().Value(userKey{}).(string); ok {
		return u
	}
	return webUser
}

// bearer returns the request's bearer token, or "".
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// foreign says why a request without a token comes from elsewhere than a
// page of this server on this machine, or "".
func foreign(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !loopbackHost(host) {
		return fmt.Sprintf("host %q is not this machine: without HTTP_TOKEN the server answers only on localhost", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "" // not a cross-origin browser request: curl, or a same-origin GET
	}
	u, err := url.Parse(origin)
	if err != nil || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Sprintf("requests from %q are refused: without HTTP_TOKEN only the server's own page may call the API", origin)
	}
	return ""
}
