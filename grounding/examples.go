package grounding

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tmc/langchaingo/embeddings"

	"github.com/analyticsbot/analyticsbot/store"
)

// Examples retrieves the stored examples whose questions are most like a
// question: by their words and letters in PostgreSQL
// (store.DB.SearchExamples) and, with an Embedder, by their meaning too, so
// "What were our earnings each month?" finds "Revenue per month". It
// implements nodes.ExampleStore.
type Examples struct {
	DB *store.DB
	// Embedder embeds questions (EXAMPLES_EMBEDDINGS); nil: words and
	// letters only. Model names it, and is stored with every vector so
	// that a change of model embeds the examples again.
	Embedder embeddings.Embedder
	Model    string
	Logger   *slog.Logger
	// Now is the clock the vectors are read again by (tests move it by
	// hand); nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	vectors map[string]vectorSet // by backend

	// uses are counted here and written at most every usesInterval, by
	// whichever question comes after it: see MarkExamplesUsed.
	usesMu    sync.Mutex
	uses      map[int64]int64
	usesSaved time.Time
}

// usesInterval is how often the examples' use counts are written.
const usesInterval = time.Second

type vectorSet struct {
	loaded  time.Time
	vectors []store.ExampleVector
}

const (
	// vectorsTTL is how long the examples' vectors are kept in memory
	// before they are read again (new examples, changed statuses).
	vectorsTTL = 30 * time.Second
	// embedBatch bounds the examples embedded in one refresh: the first
	// questions after a large examples file arrives pay for it in turns.
	embedBatch = 256
	// MinExampleSimilarity is the least cosine similarity of two
	// questions' embeddings for an example to be found by meaning.
	MinExampleSimilarity = 0.5
)

// SearchExamples returns at most k examples of backend like question, best
// first; see store.DB.SearchExamples. With an Embedder, an example also
// scores its questions' cosine similarity when that is higher (a candidate
// keeping store.CandidateWeight of it); a failed embedding leaves the
// words' choice.
func (x *Examples) SearchExamples(ctx context.Context, backend, question string, k int) ([]store.Example, error) {
	var r store.Reads
	search := x.QueueSearchExamples(ctx, &r, backend, question, k)
	r.Send(ctx)
	return search(ctx)
}

// QueueSearchExamples queues SearchExamples' search by words and letters on
// r, to share its round trip with the other reads of r; the function it
// returns gives its result once r is sent (the search by meaning, with an
// Embedder, then reads on its own).
func (x *Examples) QueueSearchExamples(ctx context.Context, r *store.Reads, backend, question string, k int) func(context.Context) ([]store.Example, error) {
	byWords := x.DB.QueueSearchExamples(ctx, r, backend, question, k)
	return func(ctx context.Context) ([]store.Example, error) {
		found, err := byWords(ctx)
		if err != nil || x.Embedder == nil || k <= 0 {
			return found, err
		}
		return x.addByMeaning(ctx, found, backend, question, k)
	}
}

// addByMeaning adds to found, the examples found by their words, those
// whose questions' embeddings are closest to question's, best first.
func (x *Examples) addByMeaning(ctx context.Context, found []store.Example, backend, question string, k int) ([]store.Example, error) {
	byMeaning, err := x.similar(ctx, backend, question, k)
	if err != nil {
		x.logger().WarnContext(ctx, "examples are found by their words only", "err", err)
		return found, nil
	}
	have := make(map[int64]int, len(found))
	for i, e := range found {
		have[e.ID] = i
	}
	var missing []int64
	for _, m := range byMeaning {
		if i, ok := have[m.id]; ok {
			found[i].Score = max(found[i].Score, m.score)
		} else {
			missing = append(missing, m.id)
		}
	}
	if len(missing) > 0 {
		more, err := x.DB.ExamplesByID(ctx, missing)
		if err != nil {
			return nil, err
		}
		score := make(map[int64]float64, len(byMeaning))
		for _, m := range byMeaning {
			score[m.id] = m.score
		}
		for _, e := range more {
			e.Score = score[e.ID]
			found = append(found, e)
		}
	}
	slices.SortFunc(found, func(a, b store.Example) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if av, bv := a.Status == store.StatusVerified, b.Status == store.StatusVerified; av != bv {
			if av {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return found[:min(k, len(found))], nil
}

type scoredID struct {
	id    int64
	score float64
}

// similar returns the k examples whose questions' embeddings are closest to
// question's, with their weighted cosine similarity.
func (x *Examples) similar(ctx context.Context, backend, question string, k int) ([]scoredID, error) {
	vectors, err := x.load(ctx, backend)
	if err != nil || len(vectors) == 0 {
		return nil, err
	}
	q, err := x.Embedder.EmbedQuery(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("embed the question: %w", err)
	}
	normalize(q)
	var out []scoredID
	for _, v := range vectors {
		sim := dot(q, v.Vector)
		if sim < MinExampleSimilarity {
			continue
		}
		if !v.Verified {
			sim *= store.CandidateWeight
		}
		out = append(out, scoredID{id: v.ID, score: sim})
	}
	// Of equal scores (questions that mean the same), the earliest stored
	// first: the vectors come in whatever order the table gives them.
	slices.SortFunc(out, func(a, b scoredID) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id)) })
	return out[:min(k, len(out))], nil
}

// load returns backend's vectors, embedding the examples that have none by
// Model first (up to embedBatch of them).
func (x *Examples) load(ctx context.Context, backend string) ([]store.ExampleVector, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Now
	if x.Now != nil {
		now = x.Now
	}
	if set, ok := x.vectors[backend]; ok && now().Sub(set.loaded) < vectorsTTL {
		return set.vectors, nil
	}
	todo, err := x.DB.ExamplesToEmbed(ctx, backend, x.Model, embedBatch)
	if err != nil {
		return nil, err
	}
	if len(todo) > 0 {
		texts := make([]string, len(todo))
		for i, e := range todo {
			texts[i] = e.Question
		}
		vecs, err := x.Embedder.EmbedDocuments(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d examples: %w", len(todo), err)
		}
		if len(vecs) != len(todo) {
			return nil, fmt.Errorf("embed %d examples: got %d vectors", len(todo), len(vecs))
		}
		for i, e := range todo {
			if err := x.DB.SetExampleEmbedding(ctx, e.ID, x.Model, vecs[i]); err != nil {
				return nil, err
			}
		}
	}
	vectors, err := x.DB.ExampleVectors(ctx, backend, x.Model)
	if err != nil {
		return nil, err
	}
	for _, v := range vectors {
		normalize(v.Vector) // so that a dot product is their cosine
	}
	if x.vectors == nil {
		x.vectors = map[string]vectorSet{}
	}
	x.vectors[backend] = vectorSet{loaded: now(), vectors: vectors}
	return vectors, nil
}

// MarkExamplesUsed counts a use of each example of ids. Every question
// of a busy bot uses the same few examples: writing each use would make
// their rows a lock every question waits on, so uses are added up in
// memory and written in one statement at most once a second (FlushUses
// writes what is left).
func (x *Examples) MarkExamplesUsed(ctx context.Context, ids []int64) error {
	x.usesMu.Lock()
	if x.uses == nil {
		x.uses = map[int64]int64{}
	}
	for _, id := range ids {
		x.uses[id]++
	}
	if time.Since(x.usesSaved) < usesInterval {
		x.usesMu.Unlock()
		return nil
	}
	uses := x.uses
	x.uses, x.usesSaved = nil, time.Now()
	x.usesMu.Unlock()
	return x.DB.AddExampleUses(ctx, uses)
}

// FlushUses writes the uses counted and not yet written.
func (x *Examples) FlushUses(ctx context.Context) error {
	x.usesMu.Lock()
	uses := x.uses
	x.uses, x.usesSaved = nil, time.Now()
	x.usesMu.Unlock()
	return x.DB.AddExampleUses(ctx, uses)
}

// VerifiedExample returns the verified example whose query has fingerprint.
func (x *Examples) VerifiedExample(ctx context.Context, backend, fingerprint string) (store.Example, bool, error) {
	return x.DB.VerifiedExample(ctx, backend, fingerprint)
}

func (x *Examples) logger() *slog.Logger {
	if x.Logger != nil {
		return x.Logger
	}
	return slog.Default()
}

// normalize scales v to length 1 (a zero vector stays zero).
func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := 1 / math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// dot is the dot product of a and b, the cosine of two normalised
// vectors; 0 when their lengths differ (another model's vectors).
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
