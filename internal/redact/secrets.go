package redact

import (
	"regexp"
	"strings"
)

// Mask is what stands in for a secret that [Secrets] or [Values] hides.
const Mask = "[masked]"

// secretLike matches what looks like a credential in an error's text: an
// OpenAI- or Anthropic-style key, a bearer token, key=value pairs whose
// name says secret ("api_key=…", and "API Key = …" as LiteLLM's proxy
// repeats a key it refused), and a URL's password.
var secretLike = regexp.MustCompile(`(?i)\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}` +
	`|\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*` +
	`|\b(api[ _-]?key|token|secret|password|passwd|pwd|authorization)\s*[=:]\s*(?:bearer\s+)?[^\s,;&"')]+` +
	`|://[^/\s:@]+:[^@\s/]+@`)

// Secrets replaces what looks like a credential in s with [Mask], so an
// error quoting a request or a connection string can be logged. It knows
// credentials by their shape only: a key without a known prefix, named by
// nothing, passes; [Values] masks the ones the caller knows.
func Secrets(s string) string {
	return secretLike.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "://") {
			return "://" + Mask + "@"
		}
		if i := strings.IndexAny(m, "=:"); i > 0 && !strings.HasPrefix(strings.ToLower(m), "sk-") {
			i++
			for i < len(m) && (m[i] == ' ' || m[i] == '\t') {
				i++
			}
			return m[:i] + Mask
		}
		return Mask
	})
}

// minSecret is the shortest value [Values] masks: a shorter one keeps
// nothing secret, and masking it would garble the words around it.
const minSecret = 4

// Values replaces each of secrets (a configured key's value, a password)
// in s with [Mask], whatever its shape, then what [Secrets] finds.
func Values(s string, secrets ...string) string {
	for _, v := range secrets {
		if len(v) >= minSecret {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return Secrets(s)
}
