package eval

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// The modes of a run, as its report names them.
const (
	ModeFull      = "full"      // through the configured model
	ModeOracle    = "oracle"    // through the workflow, each gold query the model's reply
	ModeRetrieval = "retrieval" // what the generator would be given, no model call
)

// Report sums up a run.
type Report struct {
	Name  string   `json:"name"`
	Mode  string   `json:"mode"` // ModeFull, ModeOracle or ModeRetrieval
	Items []Result `json:"items"`
	// Full mode.
	Accuracy   float64            `json:"accuracy"`
	Categories map[string]float64 `json:"accuracy_by_category,omitempty"`
	ModelCalls int                `json:"model_calls"`
	// Prompt tokens: in full mode all of them, summed; in retrieval mode
	// the median prompt, and the median with the whole catalog.
	PromptTokens      int     `json:"prompt_tokens"`
	WholePromptTokens int     `json:"whole_prompt_tokens,omitempty"`
	LatencyP50        float64 `json:"latency_p50_ms,omitempty"`
	LatencyP95        float64 `json:"latency_p95_ms,omitempty"`
	// Retrieval mode: found of total references, over all items.
	TableRecall  float64 `json:"table_recall,omitempty"`
	ColumnRecall float64 `json:"column_recall,omitempty"`
	ValueRecall  float64 `json:"value_recall,omitempty"`
}

func newReport(name, mode string, items []Result) *Report {
	r := &Report{Name: name, Mode: mode, Items: items, Categories: map[string]float64{}}
	if len(items) == 0 {
		return r
	}
	passed := 0
	byCat, passCat := map[string]int{}, map[string]int{}
	var lat []float64
	var tokens, whole []int
	var t, tf, c, cf, v, vf int
	for _, it := range items {
		byCat[it.Category]++
		if it.Pass {
			passed++
			passCat[it.Category]++
		}
		r.ModelCalls += it.ModelCalls
		lat = append(lat, float64(it.Latency)/float64(time.Millisecond))
		tokens, whole = append(tokens, it.Tokens), append(whole, it.WholeTokens)
		t, tf, c, cf, v, vf = t+it.Tables, tf+it.TablesFound, c+it.Columns, cf+it.ColumnsFound, v+it.Values, vf+it.ValuesFound
	}
	r.Accuracy = float64(passed) / float64(len(items))
	for cat, n := range byCat {
		r.Categories[cat] = float64(passCat[cat]) / float64(n)
	}
	if mode != ModeRetrieval {
		for _, n := range tokens {
			r.PromptTokens += n
		}
		r.LatencyP50, r.LatencyP95 = percentile(lat, 0.5), percentile(lat, 0.95)
		return r
	}
	r.PromptTokens, r.WholePromptTokens = medianInt(tokens), medianInt(whole)
	r.TableRecall, r.ColumnRecall, r.ValueRecall = ratio(tf, t), ratio(cf, c), ratio(vf, v)
	return r
}

func ratio(found, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func medianInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// Print writes the report for people: one line per failed item (or per
// item with a missing reference), then the totals.
func (r *Report) Print(w io.Writer) {
	for _, it := range r.Items {
		if it.Pass {
			continue
		}
		why := it.Why
		if len(it.Missing) > 0 {
			why = strings.TrimSpace(why + " missing: " + strings.Join(it.Missing, ", "))
		}
		fmt.Fprintf(w, "FAIL %-28s %s\n     %s\n", it.ID, it.Question, why)
	}
	fmt.Fprintf(w, "%s (%s): %d items\n", r.Name, r.Mode, len(r.Items))
	if r.Mode != ModeRetrieval {
		fmt.Fprintf(w, "execution accuracy %.3f; model calls %d; prompt tokens %d; latency p50 %.0f ms, p95 %.0f ms\n",
			r.Accuracy, r.ModelCalls, r.PromptTokens, r.LatencyP50, r.LatencyP95)
	} else {
		fmt.Fprintf(w, "table recall %.3f, column recall %.3f, value recall %.3f; median prompt %d tokens (whole catalog %d, %.0f %%)\n",
			r.TableRecall, r.ColumnRecall, r.ValueRecall, r.PromptTokens, r.WholePromptTokens,
			100*float64(r.PromptTokens)/float64(max(r.WholePromptTokens, 1)))
	}
	cats := make([]string, 0, len(r.Categories))
	for c := range r.Categories {
		cats = append(cats, c)
	}
	slices.SortFunc(cats, cmp.Compare[string])
	for _, c := range cats {
		fmt.Fprintf(w, "  %-20s %.3f\n", c, r.Categories[c])
	}
}
