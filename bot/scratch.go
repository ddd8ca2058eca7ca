package bot

import (
	"fmt"
	"log/slog"

	"github.com/analyticsbot/analyticsbot/scratch"
)

// openScratch removes what processes that are gone left in TMPDIR (a kill
// -9 mid-export leaves its files) and opens this bot's own directory for
// full exports, which Close removes. Several replicas and commands may
// share TMPDIR: a live process's directory is never touched.
func openScratch(log *slog.Logger) (*scratch.Dir, error) {
	swept, err := scratch.Sweep("")
	if err != nil {
		// What could be removed was; the rest stays for the next start.
		log.Warn("leftover export files not all removed", "err", err)
	}
	if swept.Dirs > 0 || swept.Files > 0 {
		log.Info("removed export files left by processes that are gone",
			"directories", swept.Dirs, "files", swept.Files, "bytes", swept.Bytes)
	}
	d, err := scratch.Open("")
	if err != nil {
		return nil, fmt.Errorf("export directory: %w", err)
	}
	return d, nil
}
