package pgpool

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConnConfig is the configuration of a single connection, outside any
// pool, to the database of url (a URL or key=value string, as DATABASE_URL
// takes): the settings of Configure, and none of the pool's own
// (pool_max_conns, pool_min_conns, pool_max_conn_lifetime,
// pool_health_check_period, …), with no bound on its round trips (its
// callers create databases and wait on locks) but the connect timeout. pgx.ParseConfig would keep those as
// run-time parameters for the server, which refuses them as unknown, so a
// URL made for the pool could not open a connection of its own.
func ConnConfig(url string) (*pgx.ConnConfig, error) {
	// pgxpool's parser is what takes the pool's settings out (and checks
	// them): a URL it accepts is a URL the pool accepts.
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn redacts the password in its parse errors.
		return nil, err
	}
	Configure(cfg, 0)
	return cfg.ConnConfig, nil
}
