package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/eval"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// errBelowTarget marks an eval run below --min-accuracy or --min-recall:
// the report is printed, and the command exits 1.
var errBelowTarget = errors.New("below the target")

// evalCommand runs an eval file: through the configured model, through the
// oracle (each gold query as the model's reply), or retrieval only.
func evalCommand(ctx context.Context, args []string, out io.Writer) error {
	const form = "eval [--json] [--jobs N] [--retrieval-only | --oracle] [--min-accuracy X] [--min-recall X] " +
		"[--min-table-recall X] [--min-column-recall X] [--min-value-recall X] [--max-prompt-share X] [--examples on|off|compare] FILE"
	fs := newFlagSet("eval")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	jobs := fs.Int("jobs", 4, "items asked at once")
	retrieval := fs.Bool("retrieval-only", false, "call no model: score what the generator would be shown")
	oracle := fs.Bool("oracle", false, "answer every question with its gold query through the scripted model")
	minAccuracy := fs.Float64("min-accuracy", 0, "fail (exit 1) below this execution accuracy")
	minRecall := fs.Float64("min-recall", 0, "fail (exit 1) when the table, column or value recall is below this")
	minTable := fs.Float64("min-table-recall", -1, "fail (exit 1) below this table recall (default --min-recall)")
	minColumn := fs.Float64("min-column-recall", -1, "fail (exit 1) below this column recall (default --min-recall)")
	minValue := fs.Float64("min-value-recall", -1, "fail (exit 1) below this value recall (default --min-recall)")
	maxShare := fs.Float64("max-prompt-share", 0, "fail (exit 1) when the median prompt is a larger share than this of the whole catalog's (0: no limit)")
	examples := fs.String("examples", "on", "on: prompts show the retrieved examples (EXAMPLES_K); off: none; compare: run both and report both")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, form, err)
	}
	switch {
	case fs.NArg() != 1:
		return fmt.Errorf("%w: %s: one eval file", errUsage, form)
	case *retrieval && *oracle:
		return fmt.Errorf("%w: %s: --oracle asks through the workflow, --retrieval-only does not", errUsage, form)
	case *jobs < 1:
		return fmt.Errorf("%w: %s: --jobs must be at least 1", errUsage, form)
	case *examples != "on" && *examples != "off" && *examples != "compare":
		return fmt.Errorf("%w: %s: --examples is on, off or compare, not %q", errUsage, form, *examples)
	}
	if err := checkGates(fs, *retrieval, *oracle); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, form, err)
	}
	f, err := eval.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	if *oracle {
		cleanup, err := useOracle(ctx, &cfg, f)
		if err != nil {
			return err
		}
		defer cleanup()
		*jobs = 1 // the oracle's rules answer in file order
	}
	modes := []string{*examples}
	if *examples == "compare" {
		modes = []string{"on", "off"}
	}
	reports := map[string]*eval.Report{}
	for _, mode := range modes {
		c := cfg
		switch {
		case mode == "off":
			c.ExamplesK = 0
		case c.ExamplesK == 0:
			c.ExamplesK = nodes.DefaultExamplesK
		}
		rep, err := runEval(ctx, c, f, *jobs, *retrieval, out, *asJSON)
		if err != nil {
			return err
		}
		if *oracle {
			rep.Mode = eval.ModeOracle
		}
		reports[mode] = rep
	}
	rep := reports[modes[0]]
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		var v any = rep
		if *examples == "compare" {
			v = map[string]*eval.Report{"examples_on": reports["on"], "examples_off": reports["off"]}
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else {
		for i, mode := range modes {
			if len(modes) > 1 {
				fmt.Fprintf(out, "%sWith examples %s:\n", map[bool]string{true: "\n"}[i > 0], mode)
			}
			reports[mode].Print(out)
		}
		if len(modes) > 1 {
			printExamplesEffect(out, reports["on"], reports["off"], *retrieval)
		}
	}
	if *retrieval {
		var misses []string
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"table", rep.TableRecall, *minTable},
			{"column", rep.ColumnRecall, *minColumn},
			{"value", rep.ValueRecall, *minValue},
		} {
			if c.want < 0 {
				c.want = *minRecall
			}
			if c.got < c.want {
				misses = append(misses, fmt.Sprintf("%s recall %.3f is below %.3f", c.name, c.got, c.want))
			}
		}
		if share := float64(rep.PromptTokens) / float64(max(rep.WholePromptTokens, 1)); *maxShare > 0 && share > *maxShare {
			misses = append(misses, fmt.Sprintf("the median prompt is %.3f of the whole catalog's, above %.3f", share, *maxShare))
		}
		if len(misses) > 0 {
			return fmt.Errorf("%w: %s", errBelowTarget, strings.Join(misses, "; "))
		}
	} else if rep.Accuracy < *minAccuracy {
		return fmt.Errorf("%w: execution accuracy %.3f is below --min-accuracy %.3f", errBelowTarget, rep.Accuracy, *minAccuracy)
	}
	return nil
}

// retrievalGates are the flags that hold a floor of --retrieval-only; the
// other modes hold --min-accuracy.
var retrievalGates = []string{"min-recall", "min-table-recall", "min-column-recall", "min-value-recall", "max-prompt-share"}

// checkGates refuses a floor the run's mode does not score: a run that
// exited 0 with `--min-recall 0.99` in full mode would say the floor held
// when nothing checked it.
func checkGates(fs *flag.FlagSet, retrieval, oracle bool) error {
	var wrong []string
	fs.Visit(func(f *flag.Flag) {
		if retrieval && f.Name == "min-accuracy" || !retrieval && slices.Contains(retrievalGates, f.Name) {
			wrong = append(wrong, "--"+f.Name)
		}
	})
	switch {
	case len(wrong) == 0:
		return nil
	case retrieval:
		return errors.New("--min-accuracy scores answers, and --retrieval-only asks for none: it applies to the full and --oracle modes")
	}
	mode := "full mode asks the model"
	if oracle {
		mode = "--oracle asks through the workflow"
	}
	verb := "applies"
	if len(wrong) > 1 {
		verb = "apply"
	}
	return fmt.Errorf("%s %s to --retrieval-only, and %s: use --min-accuracy", strings.Join(wrong, " and "), verb, mode)
}

// runEval scores f on a bot of cfg: retrieval only, or answers.
func runEval(ctx context.Context, cfg bot.Config, f *eval.File, jobs int, retrieval bool, out io.Writer, quiet bool) (*eval.Report, error) {
	b, err := bot.New(ctx, cfg, slog.Default())
	if err != nil {
		return nil, err
	}
	defer b.Close()
	r := &eval.Runner{Bot: b, Jobs: jobs}
	var rep *eval.Report
	if retrieval {
		if err := ensureValueIndex(ctx, b, out, quiet); err != nil {
			return nil, err
		}
		rep = r.Retrieval(ctx, f)
	} else {
		rep = r.Full(ctx, f)
	}
	return rep, ctx.Err()
}

// printExamplesEffect writes what retrieved examples changed.
func printExamplesEffect(out io.Writer, on, off *eval.Report, retrieval bool) {
	if retrieval {
		fmt.Fprintf(out, "\nExamples: median prompt %d tokens with, %d without; table recall %.3f with, %.3f without\n",
			on.PromptTokens, off.PromptTokens, on.TableRecall, off.TableRecall)
		return
	}
	fmt.Fprintf(out, "\nExamples: execution accuracy %.3f with, %.3f without (%+.3f)\n", on.Accuracy, off.Accuracy, on.Accuracy-off.Accuracy)
}

// useOracle points the configuration at a scripted model answering each
// question of f with its gold query, written to a temporary file.
func useOracle(ctx context.Context, cfg *bot.Config, f *eval.File) (cleanup func(), err error) {
	step, err := generatorStep(ctx, *cfg)
	if err != nil {
		return nil, err
	}
	script, err := eval.Oracle(f, step)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "analyticsbot-oracle-")
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	path := filepath.Join(dir, "oracle.yaml")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("oracle: %w", err)
	}
	cfg.LLMProvider, cfg.LLMScript = "script", path
	return func() { os.RemoveAll(dir) }, nil
}

// generatorStep is the model step of the configured backend's query
// generator, read from a bot opened only to ask.
func generatorStep(ctx context.Context, cfg bot.Config) (string, error) {
	b, err := bot.New(ctx, cfg, slog.Default())
	if err != nil {
		return "", err
	}
	defer b.Close()
	return string(b.Backend().Dialect().Step), nil
}

// ensureValueIndex builds the value index when the backend has none yet,
// so that retrieval is scored with the lookup a running bot would have.
func ensureValueIndex(ctx context.Context, b *bot.Bot, out io.Writer, quiet bool) error {
	if b.Config().ValueIndexMaxDistinct <= 0 {
		return nil
	}
	st, err := b.DB().ValueIndexStats(ctx, b.Backend().Name())
	if err != nil || st.Values > 0 {
		return err
	}
	vs, err := b.RefreshValueIndex(ctx)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(out, "value index built: %d values of %d text columns in %s\n", vs.Values, vs.Indexed, vs.Elapsed.Round(1e6))
	}
	return nil
}
