package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// errRejected makes the program exit 1 without a message of its own: the
// JSON on stdout says why.
var errRejected = errors.New("rejected")

// errNotChecked makes the program exit 2, as a usage error does: the SQL
// was not checked (a setting to fix, stdin unreadable), so there is no
// verdict, and a CI job must not read the exit as "rejected".
var errNotChecked = errors.New("validate-sql could not check the SQL")

// maxValidateInput bounds what validate-sql reads; longer texts are
// rejected as too long all the same.
const maxValidateInput = 4 << 20

// schemaFlags collects repeated --schema flags.
type schemaFlags []string

func (s *schemaFlags) String() string { return strings.Join(*s, ",") }

func (s *schemaFlags) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty schema name")
	}
	*s = append(*s, v)
	return nil
}

// validateSQL checks one SQL text from stdin with the guard the bot uses,
// and prints {"ok","class","reason"}.
func validateSQL(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate-sql")
	var schemas schemaFlags
	fs.Var(&schemas, "schema", "a schema the SQL may read (repeatable; default ANALYTICS_SCHEMA)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: validate-sql [--schema NAME]... < query.sql: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: validate-sql reads the SQL on stdin and takes no arguments, got %q", errUsage, fs.Args())
	}
	sql, err := io.ReadAll(io.LimitReader(stdin, maxValidateInput))
	if err != nil {
		return fmt.Errorf("%w: read stdin: %w", errNotChecked, err)
	}
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("%w: %w", errNotChecked, err)
	}
	if len(schemas) == 0 {
		schemas = schemaFlags(cfg.Postgres.Schemas)
	}
	tables, err := tableNames(ctx, cfg, schemas)
	if err != nil {
		fmt.Fprintf(stderr, "analyticsbot: warning: %v; checking without the list of tables\n", err)
	}

	verdict := struct {
		OK     bool   `json:"ok"`
		Class  string `json:"class"`
		Reason string `json:"reason"`
	}{OK: true}
	var rej *sqlguard.Rejection
	if err := sqlguard.Check(string(sql), pgwarehouse.GuardPolicy(schemas, tables, 0)); errors.As(err, &rej) {
		verdict.OK, verdict.Class, verdict.Reason = false, string(rej.Class), rej.Reason
	} else if err != nil {
		return fmt.Errorf("%w: %w", errNotChecked, err)
	}
	if err := json.NewEncoder(stdout).Encode(verdict); err != nil {
		return err
	}
	if !verdict.OK {
		return errRejected
	}
	return nil
}

// tableNames reads the tables of schemas as the reader role sees them, so
// names are checked as the bot checks them.
func tableNames(ctx context.Context, cfg bot.Config, schemas []string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{
		DatabaseURL: cfg.DatabaseURL, URL: cfg.Postgres.ReaderURL, Role: cfg.Postgres.ReaderRole, Schemas: schemas,
	}})
	defer b.Close()
	cat, err := b.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the tables of %s: %w", strings.Join(schemas, ", "), err)
	}
	names := make([]string, len(cat.Tables))
	for i, t := range cat.Tables {
		names[i] = t.QualifiedName()
	}
	return names, nil
}
