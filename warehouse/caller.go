package warehouse

import "context"

// Caller is the person a query runs for. Backends pass it to the data
// source, so the source's own rules can scope what it returns: PostgreSQL's
// row-level security policies read it, signed, with
// analyticsbot_identity.user_email() (docs/security.md), Cube in the JWT's
// security context.
type Caller struct {
	// UserID is the surface's id of the person: a Slack user ID, "web",
	// "cli".
	UserID string
	// Email is the person's address when the surface knows it (Slack's
	// users.info); empty otherwise.
	Email string
	// ChannelID is where they asked: a Slack channel, "web".
	ChannelID string
	// Access is what they may read; nil: everything the backend's role
	// may (no access file).
	Access Access
	// Shared is what may be shown where they asked, when that is less
	// than Access: a shared channel's ceiling over their policy (package
	// access). nil: what they asked is seen by them alone, or by no one
	// it could tell more than Access allows. Whoever posts there runs its
	// queries under Shared (see SharedCaller).
	Shared Access
}

// SharedCaller returns ctx with its caller's queries made under Shared,
// for what is posted where they asked; ctx itself when there is no
// ceiling.
func SharedCaller(ctx context.Context) context.Context {
	c := CallerOf(ctx)
	if c.Shared == nil {
		return ctx
	}
	c.Access = c.Shared
	return WithCaller(ctx, c)
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf returns the caller ctx carries; the zero Caller (nobody) when
// none: scoped rules then match no one.
func CallerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}
