package cubewarehouse

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/analyticsbot/analyticsbot/cube"
)

// Settings are the Cube backend's settings, read from the environment by
// their env tags (bot.Config holds them as Cube).
type Settings struct {
	// APIURL is the Cube server's REST API, with or without the
	// /cubejs-api/v1 suffix.
	APIURL string `env:"CUBE_API_URL" envDefault:"http://127.0.0.1:4000/cubejs-api/v1"`
	// APISecret signs the JWTs Cube checks (HS256, one hour).
	APISecret string `env:"CUBE_API_SECRET"`
	// SecurityContext is a JSON object of extra claims, such as a tenant id
	// Cube's model filters on.
	SecurityContext string `env:"CUBE_SECURITY_CONTEXT"`
	// Timeout bounds one call to Cube as a whole; 0 means
	// cube.DefaultTimeout.
	Timeout time.Duration `env:"CUBE_TIMEOUT" envDefault:"30s"`
}

// Check reports the settings a Cube backend cannot work with, each by its
// variable's name, and returns the security context's claims.
func (s Settings) Check() (claims map[string]any, err error) {
	var errs []error
	if s.APISecret == "" {
		errs = append(errs, errors.New("BACKEND=cube needs CUBE_API_SECRET, the secret the Cube server checks tokens with"))
	}
	if s.SecurityContext != "" {
		switch err := json.Unmarshal([]byte(s.SecurityContext), &claims); {
		case err != nil:
			errs = append(errs, fmt.Errorf("CUBE_SECURITY_CONTEXT must be a JSON object: %w", err))
		case claims == nil:
			// null decodes without an error, to no claims at all: a
			// context meant to scope the data would be silently lost.
			errs = append(errs, errors.New("CUBE_SECURITY_CONTEXT must be a JSON object: got null"))
		case hasKey(claims, identityClaim):
			// It would replace who asks, which row scoping reads.
			errs = append(errs, fmt.Errorf("CUBE_SECURITY_CONTEXT may not set %q: the bot says there who each query is for", identityClaim))
		}
	}
	if s.Timeout < 0 {
		errs = append(errs, fmt.Errorf("CUBE_TIMEOUT must be a duration above 0, such as 30s, got %s", s.Timeout))
	}
	return claims, errors.Join(errs...)
}

// Open returns a Backend answering from the Cube server the settings name.
// It does not call Cube: a server that is down fails the first question.
func Open(s Settings, log *slog.Logger) (*Backend, error) {
	claims, err := s.Check()
	if err != nil {
		return nil, err
	}
	c, err := cube.New(cube.Config{APIURL: s.APIURL, Secret: s.APISecret, SecurityContext: claims, Timeout: s.Timeout})
	if err != nil {
		// Check has passed the secret, so what cube refuses is the URL:
		// name the variable that holds it, as Check names the others.
		return nil, fmt.Errorf("CUBE_API_URL: %w", err)
	}
	return New(c, Config{Logger: log}), nil
}

// hasKey reports whether m sets key, to any value, null included.
func hasKey(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}
