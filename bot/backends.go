package bot

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// opener opens a backend from the configuration; close releases it.
type opener func(ctx context.Context, cfg Config, log *slog.Logger) (b warehouse.Backend, close func(), err error)

// backends are the backends BACKEND can name. Adding one is a package under
// warehouse/ and a line here (docs/architecture.md).
var backends = map[string]opener{
	pgwarehouse.Name:   openPostgres,
	cubewarehouse.Name: openCube,
}

// backendNames lists the names BACKEND accepts, sorted.
func backendNames() []string {
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// backendName is the backend BACKEND names; "sql" and "" mean postgres.
func (c Config) backendName() string {
	switch b := strings.ToLower(strings.TrimSpace(c.Backend)); b {
	case "", "sql":
		return pgwarehouse.Name
	default:
		return b
	}
}

// ReaderConfig is how the PostgreSQL backend reads the analytics schemas:
// as the reader, under the row, byte and time caps.
func (c Config) ReaderConfig() pgwarehouse.ExecConfig {
	e := c.Postgres.Exec(c.DatabaseURL, c.MaxRows, c.DatabaseTimeout)
	e.IdentityKey = c.identityKey
	return e
}

// openPostgres answers from the analytics schemas of DATABASE_URL, as the
// reader role, and warns about schemas the reader cannot read.
func openPostgres(ctx context.Context, cfg Config, log *slog.Logger) (warehouse.Backend, func(), error) {
	roles, err := policyRoles(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig(), PolicyRoles: roles})
	if err := b.Ping(ctx); err != nil {
		b.Close()
		return nil, nil, err
	}
	problems, err := b.Problems(ctx)
	if err != nil {
		log.WarnContext(ctx, "check the analytics schemas", "err", err)
	}
	for _, p := range problems {
		log.WarnContext(ctx, "questions will find nothing here until this is fixed: "+p,
			"hint", "check ANALYTICS_SCHEMA, run `analyticsbot demo load`, or grant the reader role (README)")
	}
	return b, b.Close, nil
}

// openCube answers from the Cube semantic layer at CUBE_API_URL.
func openCube(_ context.Context, cfg Config, log *slog.Logger) (warehouse.Backend, func(), error) {
	b, err := cubewarehouse.Open(cfg.Cube, log)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}

// policyRoles are the database roles of ACCESS_FILE's policies (and of
// each within a channel's ceiling) that `analyticsbot access apply` has
// created: each question of such a policy runs as its role, so PostgreSQL
// enforces the policy too. A policy whose role is missing (none before the
// first apply, one added to the file since) runs as the reader, with a
// warning naming it: the guard alone enforces it.
func policyRoles(ctx context.Context, cfg Config, log *slog.Logger) (map[string]string, error) {
	if cfg.AccessFile == "" {
		return nil, nil
	}
	rules, err := access.Load(cfg.AccessFile)
	if err != nil {
		return nil, err
	}
	roles, missing, err := PolicyRoles(ctx, cfg, rules)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		log.WarnContext(ctx, "some access policies have no database role yet: run `analyticsbot access apply`; until then their questions run as the reader and the guard alone enforces them",
			"missing", missing)
	}
	return roles, nil
}

// PolicyRoles looks up the database role of each of rules' policies (and
// of each within a channel's ceiling): roles maps each policy whose role
// exists to it, and missing names the roles `analyticsbot access apply`
// has not created yet, in the order of the policies.
func PolicyRoles(ctx context.Context, cfg Config, rules *access.Rules) (roles map[string]string, missing []string, err error) {
	roles = map[string]string{}
	var names []string
	for _, p := range rules.AllPolicies() {
		roles[p.Policy()] = pgwarehouse.PolicyRole(cfg.Postgres.ReaderRole, p.Policy())
		names = append(names, roles[p.Policy()])
	}
	if missing, err = pgwarehouse.MissingRoles(ctx, cfg.DatabaseURL, names); err != nil {
		return nil, nil, err
	}
	for p, role := range roles {
		if slices.Contains(missing, role) {
			delete(roles, p)
		}
	}
	return roles, missing, nil
}
