package pgwarehouse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Settings are the PostgreSQL backend's settings, read from the environment
// by their env tags (bot.Config holds them as Postgres). The database
// itself (DATABASE_URL), its round-trip bound (DATABASE_TIMEOUT) and the
// row cap (MAX_ROWS) are the bot's, shared with its own tables and every
// backend: Exec takes them.
type Settings struct {
	// Schemas are the schemas questions are answered from, a
	// comma-separated list.
	Schemas []string `env:"ANALYTICS_SCHEMA" envDefault:"analytics" envSeparator:","`
	// StatementTimeout cancels a question's query (its EXPLAIN, an export,
	// a value lookup) that runs longer; 0 means DefaultStatementTimeout.
	StatementTimeout time.Duration `env:"STATEMENT_TIMEOUT" envDefault:"30s"`
	// ReaderRole is the role generated SQL runs as. DefaultReader makes it
	// READER_DATABASE_URL's user, or the database's own reader
	// (ReaderRoleFor); empty elsewhere means DefaultReaderRole.
	ReaderRole string `env:"READER_ROLE"`
	// ReaderURL connects as ReaderRole; empty means DATABASE_URL with the
	// reader as user and no password.
	ReaderURL string `env:"READER_DATABASE_URL"`
	// MaxResultBytes caps the size of a result's values as Postgres sends
	// them; 0 means DefaultMaxBytes.
	MaxResultBytes int `env:"MAX_RESULT_BYTES" envDefault:"8388608"`
	// ReaderPerUser caps the queries one person runs at once, below the
	// reader's pool of 8 connections, so no one takes them all; 0 means
	// DefaultPerUser.
	ReaderPerUser int `env:"READER_PER_USER" envDefault:"4"`
}

// DefaultReader sets ReaderRole when READER_ROLE is not set: the user
// READER_DATABASE_URL logs in as, or else the reader of databaseURL's own
// database, so that deployments sharing a server never share a reader.
func (s *Settings) DefaultReader(databaseURL string) error {
	if s.ReaderRole != "" {
		return nil
	}
	var err error
	if s.ReaderURL != "" {
		s.ReaderRole, err = LoginRole(s.ReaderURL)
	} else {
		s.ReaderRole, err = ReaderRoleFor(databaseURL)
	}
	return err
}

// Check cleans the schema list (spaces around names, empty entries,
// repeats; none means DefaultSchema) and reports the settings that cannot
// work, each by its variable's name.
func (s *Settings) Check() error {
	var schemas []string
	for _, name := range s.Schemas {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(schemas, name) {
			schemas = append(schemas, name)
		}
	}
	if len(schemas) == 0 {
		schemas = []string{DefaultSchema}
	}
	s.Schemas = schemas
	var errs []error
	if s.StatementTimeout < 0 {
		errs = append(errs, fmt.Errorf("STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got %s", s.StatementTimeout))
	}
	if s.ReaderPerUser < 0 || s.ReaderPerUser > readerPoolSize {
		errs = append(errs, fmt.Errorf("READER_PER_USER must be a number of queries from 1 to %d, such as 4, got %d", readerPoolSize, s.ReaderPerUser))
	}
	if s.MaxResultBytes < 0 {
		errs = append(errs, fmt.Errorf("MAX_RESULT_BYTES must be a number of bytes above 0, such as 8388608, got %d", s.MaxResultBytes))
	}
	if s.ReaderURL != "" {
		if _, err := LoginRole(s.ReaderURL); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Exec is how the backend reads the analytics schemas under these
// settings: from databaseURL as the reader, at most maxRows rows, each
// round trip bounded by timeout (DATABASE_TIMEOUT).
func (s Settings) Exec(databaseURL string, maxRows int, timeout time.Duration) ExecConfig {
	return ExecConfig{
		DatabaseURL: databaseURL, URL: s.ReaderURL, Role: s.ReaderRole, Schemas: s.Schemas,
		StatementTimeout: s.StatementTimeout, MaxRows: maxRows, MaxBytes: s.MaxResultBytes, Timeout: timeout,
		PerUser: s.ReaderPerUser,
	}
}
