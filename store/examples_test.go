package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

func example(question, query, status string) store.Example {
	return store.Example{Backend: "postgres", Question: question, Query: query, Fingerprint: "fp-" + query,
		Source: store.SourceAdmin, Status: status, ProposedBy: "U1"}
}

func questions(es []store.Example) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Question
	}
	return out
}

// Loading the same example twice (every start loads the examples file)
// stores it once, and a stored example keeps its status: a rejected one
// is not revived by the file.
func TestAddExampleIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	e, added, err := db.AddExample(ctx, example("How many games?", "SELECT count(*) FROM games", store.StatusVerified))
	require.NoError(t, err)
	assert.True(t, added)
	assert.False(t, e.VerifiedAt.IsZero(), "a verified example is stamped")

	_, err = db.SetExampleStatus(ctx, e.ID, store.StatusRejected, "U2")
	require.NoError(t, err)
	again, added, err := db.AddExample(ctx, example("how many games?", "SELECT count(*) FROM games", store.StatusVerified))
	require.NoError(t, err)
	assert.False(t, added, "the same question (any case) and query")
	assert.Equal(t, e.ID, again.ID)
	assert.Equal(t, store.StatusRejected, again.Status)

	_, _, err = db.AddExample(ctx, example("", "SELECT 1", store.StatusVerified))
	assert.Error(t, err, "no question")
	_, _, err = db.AddExample(ctx, example("Q", "SELECT 1", "approved"))
	assert.ErrorIs(t, err, store.ErrExampleStatus)
	_, err = db.SetExampleStatus(ctx, 999_999, store.StatusVerified, "U2")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.ListExamples(ctx, store.ExampleFilter{Status: "aproved"})
	assert.ErrorIs(t, err, store.ErrExampleStatus)
	_, err = db.ListExamples(ctx, store.ExampleFilter{Source: "fedback"})
	assert.ErrorIs(t, err, store.ErrExampleSource, "a misspelt source is an error, not an empty list")
}

// An example's question is stored on one line: `examples list` shows it
// as the prompts do, and the same question asked with other line breaks
// is the same example.
func TestAddExampleKeepsTheQuestionOnOneLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	e, _, err := db.AddExample(ctx, example(" How many games?\nRules:\r\n- Read  salaries ", "SELECT 1", store.StatusCandidate))
	require.NoError(t, err)
	assert.Equal(t, "How many games? Rules: - Read salaries", e.Question)
	again, added, err := db.AddExample(ctx, example("How many games?\n\nRules: - Read salaries", "SELECT 1", store.StatusCandidate))
	require.NoError(t, err)
	assert.False(t, added)
	assert.Equal(t, e.ID, again.ID)
}

// Retrieval: the examples most like the question, verified ones above
// candidates that match as well, rejected ones never, other backends'
// never; words meet across inflections and misspellings.
func TestSearchExamples(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareExamples(ctx))
	add := func(e store.Example) store.Example {
		t.Helper()
		out, _, err := db.AddExample(ctx, e)
		require.NoError(t, err)
		return out
	}
	add(example("Which publisher has the most games?", "Q1", store.StatusCandidate))
	verified := add(example("Which publisher released the most games?", "Q2", store.StatusVerified))
	add(example("Which publisher has the most games ever?", "Q3", store.StatusRejected))
	add(example("What is the average price of a game?", "Q4", store.StatusVerified))
	add(example("How many reviews did games get in 2018?", "Q5", store.StatusCandidate))
	cube := example("Which publisher has the most games?", "Q6", store.StatusVerified)
	cube.Backend = "cube"
	add(cube)

	got, err := db.SearchExamples(ctx, "postgres", "Which publishers have the most games?", 3)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.Equal(t, verified.ID, got[0].ID, "verified first: %v", questions(got))
	assert.Equal(t, "Which publisher has the most games?", got[1].Question)
	for _, e := range got {
		assert.Equal(t, "postgres", e.Backend)
		assert.NotEqual(t, store.StatusRejected, e.Status)
		assert.Positive(t, e.Score)
	}
	assert.GreaterOrEqual(t, got[0].Score, got[len(got)-1].Score)

	got, err = db.SearchExamples(ctx, "postgres", "wich pubisher has most gams", 3)
	require.NoError(t, err)
	require.NotEmpty(t, got, "misspellings share no word, but letters")
	assert.Contains(t, got[0].Question, "publisher", "%v", questions(got))

	got, err = db.SearchExamples(ctx, "postgres", "the of a", 3)
	require.NoError(t, err)
	assert.Empty(t, got, "stop words match nothing")
	got, err = db.SearchExamples(ctx, "postgres", "  ", 3)
	require.NoError(t, err)
	assert.Empty(t, got)

	require.NoError(t, db.MarkExamplesUsed(ctx, []int64{verified.ID}))
	e, err := db.Example(ctx, verified.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 1, e.TimesUsed)
	assert.False(t, e.LastUsedAt.IsZero())

	list, err := db.ListExamples(ctx, store.ExampleFilter{Backend: "postgres", Status: store.StatusCandidate})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"Which publisher has the most games?", "How many reviews did games get in 2018?"}, questions(list))
}

// A search asks where pg_trgm is once: later ones are one round trip.
// When pg_trgm moves, a misspelt question still finds its example (the
// search forgets the schema it remembered and asks again); when it is
// gone, examples are found by their words.
func TestSearchExamplesFollowsTrigram(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareExamples(ctx))
	_, _, err := db.AddExample(ctx, example("Which publisher released the most games?", "Q1", store.StatusVerified))
	require.NoError(t, err)
	search := func(ctx context.Context, question string) []string {
		t.Helper()
		got, err := db.SearchExamples(ctx, "postgres", question, 3)
		require.NoError(t, err)
		return questions(got)
	}
	want := []string{"Which publisher released the most games?"}
	assert.Equal(t, want, search(ctx, "wich pubisher relesed most gams"), "by letters")
	var rt pgpool.RoundTrips
	assert.Equal(t, want, search(pgpool.CountRoundTrips(ctx, &rt), "wich pubisher relesed most gams"))
	assert.Equal(t, 1, rt.Len(), "round trips of a search once pg_trgm is known:\n%s", &rt)

	_, err = db.Pool().Exec(ctx, `CREATE SCHEMA trgm_moved; ALTER EXTENSION pg_trgm SET SCHEMA trgm_moved`)
	require.NoError(t, err)
	assert.Equal(t, want, search(ctx, "wich pubisher relesed most gams"), "pg_trgm in another schema")

	_, err = db.Pool().Exec(ctx, `DROP EXTENSION pg_trgm CASCADE`)
	require.NoError(t, err)
	assert.Equal(t, want, search(ctx, "which publisher released games"), "by words, without pg_trgm")
	assert.Empty(t, search(ctx, "wich pubisher relesed most gams"), "no letters without pg_trgm")
}

// The badge finds a verified example by its query's fingerprint, and
// stops finding it once it is rejected.
func TestVerifiedExample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	e, _, err := db.AddExample(ctx, example("How many games?", "SELECT count(*) FROM games", store.StatusCandidate))
	require.NoError(t, err)
	_, ok, err := db.VerifiedExample(ctx, "postgres", e.Fingerprint)
	require.NoError(t, err)
	assert.False(t, ok, "a candidate earns no badge")

	_, err = db.SetExampleStatus(ctx, e.ID, store.StatusVerified, "U9")
	require.NoError(t, err)
	v, ok, err := db.VerifiedExample(ctx, "postgres", e.Fingerprint)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "U9", v.VerifiedBy)
	_, ok, err = db.VerifiedExample(ctx, "cube", e.Fingerprint)
	require.NoError(t, err)
	assert.False(t, ok, "another backend's query")

	_, err = db.SetExampleStatus(ctx, e.ID, store.StatusRejected, "U9")
	require.NoError(t, err)
	_, ok, err = db.VerifiedExample(ctx, "postgres", e.Fingerprint)
	require.NoError(t, err)
	assert.False(t, ok)
}

// BenchmarkSearchExamples10000 retrieves the examples for a question among
// 10,000 stored ones (issue 13's target; BENCHMARKS.md).
func BenchmarkSearchExamples10000(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	subjects := []string{"games", "publishers", "developers", "reviews", "players", "genres", "tags", "prices", "achievements", "platforms"}
	measures := []string{"How many", "What is the average number of", "Which have the most", "List the top 10", "What share of"}
	filters := []string{"released in %d", "priced under $%d", "with over %d positive reviews", "in category %d", "since %d"}
	batch := &pgxBatch{}
	for i := range 10_000 {
		q := fmt.Sprintf("%s %s %s?", measures[i%len(measures)], subjects[(i/5)%len(subjects)],
			fmt.Sprintf(filters[(i/50)%len(filters)], 1990+i%37))
		status := store.StatusCandidate
		if i%3 == 0 {
			status = store.StatusVerified
		}
		batch.add(q, fmt.Sprintf("SELECT %d", i), status)
	}
	require.NoError(b, batch.load(ctx, db))
	require.NoError(b, db.PrepareExamples(ctx))
	b.ResetTimer()
	for b.Loop() {
		got, err := db.SearchExamples(ctx, "postgres", "Which publishers have the most games released in 2015?", 3)
		if err != nil || len(got) != 3 {
			b.Fatalf("got %d examples, err %v", len(got), err)
		}
	}
}

// pgxBatch loads many examples in one statement.
type pgxBatch struct{ questions, queries, statuses []string }

func (p *pgxBatch) add(q, query, status string) {
	p.questions, p.queries, p.statuses = append(p.questions, q), append(p.queries, query), append(p.statuses, status)
}

func (p *pgxBatch) load(ctx context.Context, db *store.DB) error {
	_, err := db.Pool().Exec(ctx, `INSERT INTO examples (backend, question, query, fingerprint, source, status)
		SELECT 'postgres', q, s, md5(s), 'admin', st FROM unnest($1::text[], $2::text[], $3::text[]) AS t(q, s, st)`,
		p.questions, p.queries, p.statuses)
	if err == nil {
		_, err = db.Pool().Exec(ctx, `ANALYZE examples`)
	}
	return err
}
