package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExitCodes runs the program as a process, as a shell or CI job does,
// and reads its exit status (README: 0 answered or accepted, 1 the bot
// failed or validate-sql rejected, 2 bad command line).
func TestExitCodes(t *testing.T) {
	// No database answers: validate-sql checks without the table list, and
	// ask fails when it opens the bot.
	setDemoEnv(t, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	tests := []struct {
		name      string
		args      []string
		stdin     string
		want      int
		wantInErr string
	}{
		{name: "ask without a question", args: []string{"ask"}, want: 2, wantInErr: "the question is missing"},
		{name: "unknown command", args: []string{"frobnicate"}, want: 2, wantInErr: "unknown command"},
		{name: "validate-sql rejects a write", args: []string{"validate-sql"}, stdin: "DROP TABLE x", want: 1},
		{name: "validate-sql accepts a select", args: []string{"validate-sql"}, stdin: "SELECT count(*) FROM apps", want: 0},
		{name: "validate-sql with an argument", args: []string{"validate-sql", "SELECT 1"}, want: 2},
		{name: "migrate with a flag it does not know", args: []string{"migrate", "--dry-run"}, want: 2,
			wantInErr: `usage: analyticsbot migrate (no arguments): unexpected argument "--dry-run"`},
		{name: "ask when the bot cannot start", args: []string{"ask", q2018}, want: 1, wantInErr: "analyticsbot:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), asProgram+"=1")
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err, "run the program")
			}
			assert.Equal(t, tt.want, code, "exit status of %q; stderr:\n%s", strings.Join(tt.args, " "), stderr.String())
			assert.Contains(t, stderr.String(), tt.wantInErr, "says why")
		})
	}
}
