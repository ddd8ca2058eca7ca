package warehouse

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value is loaded once and reused for TTL; a refresh, or the TTL
// running out, loads it again; a failed load returns its error and keeps
// the old value for the next call.
func TestMemoKeeps(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	var loads int
	fail := false
	m := Memo[int]{TTL: time.Minute, Now: func() time.Time { return now }, Load: func(context.Context) (int, error) {
		if fail {
			return 0, errors.New("down")
		}
		loads++
		return loads, nil
	}}
	ctx := context.Background()
	get := func(refresh bool) (int, error) { return m.Get(ctx, refresh) }

	v, err := get(false)
	require.NoError(t, err)
	assert.Equal(t, 1, v)
	v, _ = get(false)
	assert.Equal(t, 1, v, "reused within the TTL")
	v, _ = get(true)
	assert.Equal(t, 2, v, "a refresh loads")
	now = now.Add(time.Minute)
	v, _ = get(false)
	assert.Equal(t, 3, v, "loaded again after the TTL")

	fail = true
	_, err = get(true)
	require.EqualError(t, err, "down")
	v, err = get(false)
	require.NoError(t, err)
	assert.Equal(t, 3, v, "the old value outlives a failed load")
}

// Questions that need the value while it loads share the one load, and
// each waits only as long as its own context lets it: a backend that hangs
// holds a question to its own deadline, not to the first question's.
func TestMemoWaitsByTheCallersContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var loads atomic.Int32
	m := Memo[string]{TTL: time.Minute, Load: func(context.Context) (string, error) {
		loads.Add(1)
		<-release
		return "model", nil
	}}

	first := make(chan string)
	go func() {
		v, _ := m.Get(context.Background(), false)
		first <- v
	}()
	require.Eventually(t, func() bool { return loads.Load() == 1 }, 5*time.Second, time.Millisecond)

	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Get(short, false)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second, "the second question stopped at its own deadline")

	var wg sync.WaitGroup
	got := make([]string, 3)
	for i := range got {
		wg.Go(func() { got[i], _ = m.Get(context.Background(), false) })
	}
	require.Eventually(t, func() bool { return m.waiting() == 4 }, 5*time.Second, time.Millisecond,
		"the timed-out question and three more joined the load")
	close(release)
	wg.Wait()
	assert.Equal(t, "model", <-first)
	assert.Equal(t, []string{"model", "model", "model"}, got)
	assert.Equal(t, int32(1), loads.Load(), "one load for every question that waited on it")
}

// A load that failed only because the question that started it went away
// is started again for a question still waiting, which gets the value.
func TestMemoLoadsAgainForAWaiter(t *testing.T) {
	t.Parallel()
	var loads atomic.Int32
	started := make(chan struct{}, 2)
	m := Memo[string]{TTL: time.Minute, Load: func(ctx context.Context) (string, error) {
		n := loads.Add(1)
		started <- struct{}{}
		if n == 1 {
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "model", nil
	}}
	gone, cancel := context.WithCancel(context.Background())
	firstErr := make(chan error)
	go func() {
		_, err := m.Get(gone, false)
		firstErr <- err
	}()
	<-started
	waiter := make(chan string)
	go func() {
		v, err := m.Get(context.Background(), false)
		assert.NoError(t, err)
		waiter <- v
	}()
	require.Eventually(t, func() bool { return m.waiting() == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-firstErr, context.Canceled)
	assert.Equal(t, "model", <-waiter)
	assert.Equal(t, int32(2), loads.Load())
}

// A load that panics lets the questions waiting on it go with an error,
// and the panic reaches the question that ran the load.
func TestMemoLoadPanics(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	release := make(chan struct{})
	m := Memo[string]{TTL: time.Minute, Load: func(context.Context) (string, error) {
		close(entered)
		<-release
		panic("boom")
	}}
	panicked := make(chan any)
	go func() {
		defer func() { panicked <- recover() }()
		_, _ = m.Get(context.Background(), false)
	}()
	<-entered
	waitErr := make(chan error)
	go func() {
		_, err := m.Get(context.Background(), false)
		waitErr <- err
	}()
	require.Eventually(t, func() bool { return m.waiting() == 1 }, 5*time.Second, time.Millisecond)
	close(release)
	assert.Equal(t, "boom", <-panicked)
	select {
	case err := <-waitErr:
		require.EqualError(t, err, "load panicked: boom")
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting question was never let go")
	}
}

// A refresh asked for while a load runs gets a load that began after it
// was asked for: the running one may have read the value the refresh is
// for replacing (a model changed since).
func TestMemoRefreshLoadsAfterItIsAsked(t *testing.T) {
	t.Parallel()
	var version atomic.Int32
	release := make(chan struct{})
	var loads atomic.Int32
	m := Memo[int32]{TTL: time.Minute, Load: func(context.Context) (int32, error) {
		n := loads.Add(1)
		v := version.Load()
		if n == 1 {
			<-release
		}
		return v, nil
	}}
	first := make(chan int32)
	go func() {
		v, _ := m.Get(context.Background(), false)
		first <- v
	}()
	require.Eventually(t, func() bool { return loads.Load() == 1 }, 5*time.Second, time.Millisecond)
	version.Store(1) // the model changes while the first load runs
	refreshed := make(chan int32)
	go func() {
		v, _ := m.Get(context.Background(), true)
		refreshed <- v
	}()
	require.Eventually(t, func() bool { return m.waiting() == 1 }, 5*time.Second, time.Millisecond)
	close(release)
	assert.Equal(t, int32(0), <-first)
	assert.Equal(t, int32(1), <-refreshed, "the refresh read the model as it is now")
	v, err := m.Get(context.Background(), false)
	require.NoError(t, err)
	assert.Equal(t, int32(1), v, "and it is the one kept")
}
