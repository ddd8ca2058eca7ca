package slackapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// RequiredScopes are the bot token scopes the app uses (slack/manifest.yaml
// grants them).
var RequiredScopes = []string{
	"app_mentions:read", "assistant:write", "channels:history", "groups:history", "im:history", "mpim:history",
	"chat:write", "chat:write.public", "commands", "files:write", "users:read", "users:read.email", "usergroups:read",
	"channels:read", "groups:read",
}

// MissingScopes asks Slack (auth.test) which of RequiredScopes the bot
// token lacks: Slack lists a token's scopes in the X-OAuth-Scopes header
// of every Web API answer.
func MissingScopes(ctx context.Context, cfg Config) ([]string, error) {
	base := strings.TrimSuffix(cfg.APIURL, "/")
	if base == "" {
		base = "https://slack.com/api"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/auth.test", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+cfg.BotToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth.test: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("auth.test: HTTP %d: %w", resp.StatusCode, err)
	}
	if !body.OK {
		return nil, fmt.Errorf("auth.test: %s", body.Error)
	}
	var have []string
	for _, s := range strings.Split(resp.Header.Get("X-OAuth-Scopes"), ",") {
		have = append(have, strings.TrimSpace(s))
	}
	var missing []string
	for _, s := range RequiredScopes {
		if !slices.Contains(have, s) {
			missing = append(missing, s)
		}
	}
	return missing, nil
}
