package slackapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// runSocketMode receives envelopes over Slack's websocket until ctx ends.
// It reads the client's event channel itself rather than through
// socketmode's handler, which runs every handler in a goroutine of its own
// and so loses the arrival order of a thread's messages. Each envelope is
// acknowledged first, then queued.
func (a *App) runSocketMode(ctx context.Context) error {
	client := socketmode.New(a.api, socketmode.OptionLog(slogAdapter{a.log}), socketmode.OptionDebug(debugLogged(a.log)))
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- client.RunContext(runCtx) }()
	for {
		select {
		case <-ctx.Done():
			<-errc
			return nil
		case err := <-errc:
			if ctx.Err() != nil {
				return nil
			}
			if refusedAppToken(err) {
				return appTokenRefused(err)
			}
			return fmt.Errorf("socket mode: %w", err)
		case evt := <-client.Events:
			if err := a.onSocketEvent(ctx, client, evt); err != nil {
				cancel()
				<-errc
				return err
			}
		}
	}
}

// refusedAppToken reports whether err is Slack refusing SLACK_APP_TOKEN
// itself: the apps.connections.open errors slack-go gives up on rather
// than retries.
func refusedAppToken(err error) bool {
	if err == nil {
		return false
	}
	switch err.Error() {
	case "invalid_auth", "not_authed", "account_inactive", "token_revoked":
		return true
	}
	return false
}

// appTokenRefused is the error serve stops with when Slack refuses
// SLACK_APP_TOKEN, in the words docs/slack.md's troubleshooting quotes.
func appTokenRefused(err error) error {
	return fmt.Errorf("socket mode: Slack refused SLACK_APP_TOKEN (%w): it must be the app-level token (xapp-…) with the connections:write scope", err)
}

func (a *App) onSocketEvent(ctx context.Context, client *socketmode.Client, evt socketmode.Event) error {
	received := time.Now()
	switch evt.Type {
	case socketmode.EventTypeInvalidAuth:
		return appTokenRefused(errors.New("not found"))
	case socketmode.EventTypeConnected:
		a.log.InfoContext(ctx, "socket mode connected")
	case socketmode.EventTypeConnectionError:
		a.log.WarnContext(ctx, "socket mode connection failed; retrying", "event", evt.Data)
	case socketmode.EventTypeEventsAPI:
		a.ack(ctx, client, evt, nil, "events_api", received)
		if ev, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
			a.survive("event", func() { a.onEvent(ev, received) })
		}
	case socketmode.EventTypeInteractive:
		a.ack(ctx, client, evt, nil, "interactive", received)
		if cb, ok := evt.Data.(slack.InteractionCallback); ok {
			a.survive("interaction", func() { a.onBlockActions(cb) })
		}
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			a.ack(ctx, client, evt, nil, "slash_commands", received)
			return nil
		}
		var payload any // acknowledged, nothing shown
		if reply := a.command(cmd, received); reply.shows() {
			payload = reply
		}
		a.ack(ctx, client, evt, payload, "slash_commands", received)
	case socketmode.EventTypeErrorBadMessage:
		// An envelope slack-go could not parse, such as an event type it
		// does not know: acknowledged all the same, or Slack delivers it
		// again and again.
		if bad, ok := evt.Data.(*socketmode.ErrorBadMessage); ok {
			var env struct {
				EnvelopeID string `json:"envelope_id"`
			}
			if json.Unmarshal(bad.Message, &env) == nil && env.EnvelopeID != "" {
				if err := client.AckCtx(ctx, env.EnvelopeID, nil); err != nil {
					a.log.WarnContext(ctx, "socket mode ack failed", "envelope", env.EnvelopeID, "err", err)
				}
			}
			a.log.WarnContext(ctx, "socket mode envelope not understood: acknowledged and ignored", "err", bad.Cause)
		}
	default:
		if evt.Request != nil && evt.Request.EnvelopeID != "" {
			// Every envelope is acknowledged, or Slack delivers it again.
			a.ack(ctx, client, evt, nil, string(evt.Type), received)
		}
	}
	return nil
}

func (a *App) ack(ctx context.Context, client *socketmode.Client, evt socketmode.Event, payload any, kind string, received time.Time) {
	if evt.Request == nil {
		return
	}
	if err := client.AckCtx(ctx, evt.Request.EnvelopeID, payload); err != nil {
		a.log.WarnContext(ctx, "socket mode ack failed", "envelope", evt.Request.EnvelopeID, "err", err)
		return
	}
	if a.hooks.Acked != nil {
		a.hooks.Acked(kind, time.Since(received))
	}
	if evt.Request.RetryAttempt > 0 {
		a.log.DebugContext(ctx, "redelivered envelope", "envelope", evt.Request.EnvelopeID, "attempt", evt.Request.RetryAttempt, "reason", evt.Request.RetryReason)
	}
}
