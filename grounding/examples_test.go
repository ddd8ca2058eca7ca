package grounding_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
)

// fakeEmbedder embeds a text as a bag of concepts: words of one concept
// ("revenue", "earnings", "income") share a dimension, other words hash
// into the rest, so texts that mean alike point alike without sharing a
// word. It counts the texts it embeds and may fail.
type fakeEmbedder struct {
	texts atomic.Int64
	fail  atomic.Bool
}

var concepts = map[string]int{
	"revenue": 0, "earnings": 0, "income": 0, "sales": 0,
	"month": 1, "monthly": 1, "months": 1,
	"player": 2, "players": 2, "user": 2, "users": 2, "gamers": 2,
	"country": 3, "countries": 3, "nation": 3,
}

func (f *fakeEmbedder) embed(text string) []float32 {
	v := make([]float32, 16)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if d, ok := concepts[w]; ok {
			v[d] += 3
			continue
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[4+h.Sum32()%12] += 0.3
	}
	return v
}

func (f *fakeEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	if f.fail.Load() {
		return nil, errors.New("embeddings service down")
	}
	f.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.embed(t)
	}
	return out, nil
}

func (f *fakeEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := f.EmbedDocuments(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// With an embedder, examples are found by meaning as well as by words:
// "earnings by period" finds "revenue per month"; rejected ones never;
// each example is embedded once; a failing embedder leaves the words'
// choice.
func TestExamplesByMeaning(t *testing.T) {
	ctx := context.Background()
	db := testDB.Need(t)
	const backend = "embeddings-test"
	add := func(q, status string) store.Example {
		t.Helper()
		e, _, err := db.AddExample(ctx, store.Example{Backend: backend, Question: q, Query: "SELECT '" + q + "'",
			Fingerprint: "fp " + q, Source: store.SourceAdmin, Status: status})
		require.NoError(t, err)
		return e
	}
	revenue := add("Revenue per month in 2024", store.StatusVerified)
	add("Sales by month", store.StatusRejected)
	players := add("How many users signed up from each nation?", store.StatusCandidate)
	add("Average price of a game", store.StatusVerified)

	question := "What were our earnings by period?"
	words := &grounding.Examples{DB: db}
	got, err := words.SearchExamples(ctx, backend, question, 3)
	require.NoError(t, err)
	assert.Empty(t, got, "no word or spelling in common")

	emb := &fakeEmbedder{}
	meaning := &grounding.Examples{DB: db, Embedder: emb, Model: "fake:v1"}
	got, err = meaning.SearchExamples(ctx, backend, question, 3)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, revenue.ID, got[0].ID, "found by meaning: %v", got)
	for _, e := range got {
		assert.NotEqual(t, "Sales by month", e.Question, "a rejected example is never found")
	}
	assert.EqualValues(t, 3+1, emb.texts.Load(), "the three usable examples embedded once, and the question")

	got, err = meaning.SearchExamples(ctx, backend, "Players per country", 3)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, players.ID, got[0].ID)
	assert.Less(t, got[0].Score, 1.0, "a candidate keeps part of its score")
	assert.EqualValues(t, 3+2, emb.texts.Load(), "the examples' vectors are kept, only the question is embedded")

	// A new embedding model embeds the examples again.
	other := &grounding.Examples{DB: db, Embedder: emb, Model: "fake:v2"}
	_, err = other.SearchExamples(ctx, backend, question, 3)
	require.NoError(t, err)
	assert.EqualValues(t, 3+2+3+1, emb.texts.Load())

	// An embedder that fails costs the meaning, not the answer.
	emb.fail.Store(true)
	var log bytes.Buffer
	broken := &grounding.Examples{DB: db, Embedder: emb, Model: "fake:v3", Logger: slog.New(slog.NewTextHandler(&log, nil))}
	got, err = broken.SearchExamples(ctx, backend, "Average price of a game?", 3)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, "Average price of a game", got[0].Question, "still found by its words")
	// docs/examples.md: "and the log says so".
	assert.Contains(t, log.String(), `level=WARN msg="examples are found by their words only" err=`)
}

// docs/security.md: when the embeddings provider refuses the key and
// repeats it in its error (LiteLLM's proxy does), the warning that
// examples are found by their words only holds the provider's words, the
// key masked.
func TestExamplesEmbeddingWarningHoldsNoKey(t *testing.T) {
	ctx := context.Background()
	db := testDB.Need(t)
	const key = "0123456789abcdef0123456789abcdef" // an Azure key: no known shape
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Authentication Error, Received API Key = %s; key %s is not valid","type":"auth_error"}}`, got, got)
	}))
	t.Cleanup(srv.Close)
	emb, model, err := llm.NewEmbedder(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: srv.URL, APIKey: key}, "")
	require.NoError(t, err)
	const backend = "embeddings-key-test"
	_, _, err = db.AddExample(ctx, store.Example{Backend: backend, Question: "Revenue per month", Query: "SELECT 1",
		Fingerprint: "fp revenue", Source: store.SourceAdmin, Status: store.StatusVerified})
	require.NoError(t, err)

	var log bytes.Buffer
	x := &grounding.Examples{DB: db, Embedder: emb, Model: model, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	got, err := x.SearchExamples(ctx, backend, "Revenue per month?", 3)
	require.NoError(t, err)
	require.NotEmpty(t, got, "still found by its words")
	assert.Contains(t, log.String(), `msg="examples are found by their words only"`)
	assert.Contains(t, log.String(), "Authentication Error", "the provider's words are logged")
	assert.NotContains(t, log.String(), key, "the key is not")
}

// docs/examples.md: the examples' vectors are kept in memory and read
// again every 30 seconds, embedding up to 256 new examples each time. Of
// 257 examples the first read embeds 256; an example added meanwhile is
// not found by its meaning until 30 seconds have passed, when it is
// embedded with the one left over.
func TestExamplesReadAgainEvery30Seconds(t *testing.T) {
	ctx := context.Background()
	db := testDB.Need(t)
	const backend = "reread-test"
	_, err := db.Pool().Exec(ctx, `INSERT INTO examples (backend, question, query, fingerprint, source, status)
		SELECT $1, 'Question number ' || i || ' about games', 'SELECT ' || i, 'fp reread ' || i, 'admin', 'verified'
		FROM generate_series(1, 257) i`, backend)
	require.NoError(t, err)
	emb := &fakeEmbedder{}
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	x := &grounding.Examples{DB: db, Embedder: emb, Model: "fake:v1", Now: func() time.Time { return now }}
	question := "What were our earnings by period?"
	search := func() []string {
		t.Helper()
		got, err := x.SearchExamples(ctx, backend, question, 1)
		require.NoError(t, err)
		var out []string
		for _, e := range got {
			out = append(out, e.Question)
		}
		return out
	}

	search()
	assert.EqualValues(t, 256+1, emb.texts.Load(), "256 examples embedded, and the question")
	_, _, err = db.AddExample(ctx, store.Example{Backend: backend, Question: "Revenue per month in 2024", Query: "SELECT 1",
		Fingerprint: "fp reread revenue", Source: store.SourceAdmin, Status: store.StatusVerified})
	require.NoError(t, err)

	now = now.Add(30*time.Second - time.Millisecond)
	assert.NotContains(t, search(), "Revenue per month in 2024", "not read again within 30 seconds")
	assert.EqualValues(t, 256+2, emb.texts.Load(), "only the question embedded")

	now = now.Add(time.Millisecond)
	assert.Equal(t, []string{"Revenue per month in 2024"}, search(), "read again after 30 seconds, found by its meaning")
	assert.EqualValues(t, 256+2+2+1, emb.texts.Load(), "the example left over and the new one embedded, and the question")
}

// Examples whose questions mean the same (one embedding) are found
// earliest stored first, whatever order the database reads their vectors
// in: here the first one's row is written again after the others, and is
// read last.
func TestExamplesOfEqualMeaningInStoredOrder(t *testing.T) {
	ctx := context.Background()
	db := testDB.Need(t)
	const backend, model = "ties-test", "fake:v1"
	var ids []int64
	for _, q := range []string{"Revenue", "Income", "Earnings"} { // one concept, one vector
		e, _, err := db.AddExample(ctx, store.Example{Backend: backend, Question: q, Query: "SELECT '" + q + "'",
			Fingerprint: "fp " + q, Source: store.SourceAdmin, Status: store.StatusVerified})
		require.NoError(t, err)
		ids = append(ids, e.ID)
	}
	emb := &fakeEmbedder{}
	search := func() []int64 {
		t.Helper()
		x := &grounding.Examples{DB: db, Embedder: emb, Model: model} // its vectors read anew
		got, err := x.SearchExamples(ctx, backend, "sales", 2)
		require.NoError(t, err)
		var out []int64
		for _, e := range got {
			out = append(out, e.ID)
		}
		return out
	}
	assert.Equal(t, ids[:2], search())
	require.NoError(t, db.SetExampleEmbedding(ctx, ids[0], model, emb.embed("Revenue")))
	assert.Equal(t, ids[:2], search(), "the first example's row written again")
}

// BenchmarkExamplesByMeaning10000 finds examples among 10,000 stored ones
// (BENCHMARKS.md): by words; by letters (a misspelt question sharing no
// word); and by words and meaning with 384-dimension vectors once they
// are in memory (the fake's embedding of the question is instant).
func BenchmarkExamplesByMeaning10000(b *testing.B) {
	ctx := context.Background()
	db := testDB.Need(b)
	const backend, model, dims = "embeddings-bench", "fake:bench", 384
	_, err := db.Pool().Exec(ctx, `INSERT INTO examples (backend, question, query, fingerprint, source, status, embedding, embedding_model)
		SELECT $1, 'Question number ' || i || ' about revenue per month', 'SELECT ' || i, md5(i::text), 'admin',
		       CASE WHEN i % 3 = 0 THEN 'verified' ELSE 'candidate' END,
		       (SELECT array_agg(sin(i * d)::real) FROM generate_series(1, $3) d), $2
		FROM generate_series(1, 10000) i`, backend, model, dims)
	require.NoError(b, err)
	_, err = db.Pool().Exec(ctx, `ANALYZE examples`)
	require.NoError(b, err)
	for _, bc := range []struct {
		name, question string
		x              *grounding.Examples
	}{
		{"words", "What was the revenue per month?", &grounding.Examples{DB: db}},
		{"letters", "Qestion numbr 42 abut revenu", &grounding.Examples{DB: db}},
		{"words+meaning", "What was the revenue per month?", &grounding.Examples{DB: db, Embedder: vectorEmbedder(dims), Model: model}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				got, err := bc.x.SearchExamples(ctx, backend, bc.question, 3)
				if err != nil || len(got) == 0 {
					b.Fatalf("got %d examples, err %v", len(got), err)
				}
			}
		})
	}
}

// vectorEmbedder embeds every text as the same dims-long vector.
type vectorEmbedder int

func (v vectorEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = make([]float32, int(v))
		for d := range out[i] {
			out[i][d] = float32(math.Sin(float64(7 * (d + 1))))
		}
	}
	return out, nil
}

func (v vectorEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	out, err := v.EmbedDocuments(ctx, []string{text})
	return out[0], err
}

// Uses are added up in memory and written at most once a second, in one
// statement; FlushUses writes what is left. Every use counts.
func TestExampleUsesAddUp(t *testing.T) {
	ctx := context.Background()
	db := testDB.Need(t)
	e, _, err := db.AddExample(ctx, store.Example{Backend: "uses-test", Question: "How many uses?", Query: "SELECT 1",
		Fingerprint: "fp uses", Source: store.SourceAdmin, Status: store.StatusVerified})
	require.NoError(t, err)
	used := func() int64 {
		t.Helper()
		got, err := db.Example(ctx, e.ID)
		require.NoError(t, err)
		return got.TimesUsed
	}
	x := &grounding.Examples{DB: db}
	require.NoError(t, x.MarkExamplesUsed(ctx, []int64{e.ID}))
	assert.EqualValues(t, 1, used(), "the first use is written at once")
	for range 50 {
		require.NoError(t, x.MarkExamplesUsed(ctx, []int64{e.ID, e.ID}))
	}
	assert.Less(t, used(), int64(101), "later uses wait to be written together")
	require.NoError(t, x.FlushUses(ctx))
	assert.EqualValues(t, 101, used(), "every use counted")
}
