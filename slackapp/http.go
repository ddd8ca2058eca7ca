package slackapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/analyticsbot/analyticsbot/bot"
)

// maxRequestBody bounds what an HTTP request from Slack may carry; Slack's
// payloads are a few kilobytes.
const maxRequestBody = 1 << 20

// Handler serves Slack's HTTP requests: /slack/events (Events API),
// /slack/interactions (buttons) and /slack/commands (slash commands), and
// /healthz and /readyz for probes (bot.ServeReady).
// Every request's signature is verified before anything in it is parsed.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /slack/events", a.verified("events_api", a.serveEvents))
	mux.Handle("POST /slack/interactions", a.verified("interactive", a.serveInteractions))
	mux.Handle("POST /slack/commands", a.verified("slash_commands", a.serveCommands))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		bot.ServeReady(w, a.bot.Ready(r.Context()))
	})
	return mux
}

// runHTTP listens on Config.HTTPAddr and serves until ctx ends.
func (a *App) runHTTP(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on HTTP_ADDR %s: %w", a.cfg.HTTPAddr, err)
	}
	return a.serve(ctx, ln)
}

// Serve serves HTTP mode on ln until ctx ends, then finishes the work in
// flight like Run. It is Run for a listener the caller opened.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	err := a.serve(ctx, ln)
	a.disp.shutdown(a.cfg.ShutdownGrace)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (a *App) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	a.log.InfoContext(ctx, "slack HTTP endpoints listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve slack HTTP: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shut down slack HTTP: %w", err)
	}
	return nil
}

// verifiedHandler handles a request whose signature checked out.
type verifiedHandler func(w http.ResponseWriter, r *http.Request, body []byte, received time.Time)

// verified reads the body (bounded) and checks Slack's v0 signature over it
// (HMAC-SHA256 with the signing secret, compared in constant time, the
// timestamp at most 5 minutes off) before next sees anything.
func (a *App) verified(kind string, next verifiedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received := time.Now()
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		sv, err := slack.NewSecretsVerifier(r.Header, a.cfg.SigningSecret)
		if err == nil {
			_, _ = sv.Write(body)
			err = sv.Ensure()
		}
		if err != nil {
			a.log.WarnContext(r.Context(), "slack request refused: bad signature", "path", r.URL.Path, "err", err, "remote", r.RemoteAddr)
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
			a.log.DebugContext(r.Context(), "slack retried a request", "path", r.URL.Path, "retry", n, "reason", r.Header.Get("X-Slack-Retry-Reason"))
		}
		next(w, r, body, received)
		if a.hooks.Acked != nil {
			a.hooks.Acked(kind, time.Since(received))
		}
	})
}

func (a *App) serveEvents(w http.ResponseWriter, r *http.Request, body []byte, received time.Time) {
	ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		if !json.Valid(body) {
			http.Error(w, "cannot parse event", http.StatusBadRequest)
			return
		}
		// An event type this client does not know: acknowledged, or Slack
		// would deliver it again and again.
		a.log.DebugContext(r.Context(), "slack event ignored", "err", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	if ev.Type == slackevents.URLVerification {
		var ch slackevents.ChallengeResponse
		if err := json.Unmarshal(body, &ch); err != nil {
			http.Error(w, "cannot parse challenge", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, ch.Challenge)
		return
	}
	a.survive("event", func() { a.onEvent(ev, received) })
	w.WriteHeader(http.StatusOK)
}

func (a *App) serveInteractions(w http.ResponseWriter, r *http.Request, body []byte, _ time.Time) {
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		http.Error(w, "missing payload", http.StatusBadRequest)
		return
	}
	var cb slack.InteractionCallback
	if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil {
		http.Error(w, "cannot parse payload", http.StatusBadRequest)
		return
	}
	a.survive("interaction", func() { a.onBlockActions(cb) })
	w.WriteHeader(http.StatusOK)
}

func (a *App) serveCommands(w http.ResponseWriter, r *http.Request, body []byte, received time.Time) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "cannot parse command", http.StatusBadRequest)
		return
	}
	reply := a.command(cmd, received)
	if !reply.shows() {
		w.WriteHeader(http.StatusOK) // acknowledged, nothing shown
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}
