package store

import (
	"encoding/json"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// resultLRU is the in-process side of Cache: the most recently used
// results, at most a number of them and at most a number of bytes of them
// together (as resultSize estimates). Results are wide or tiny, so a count
// alone bounds nothing: 256 results of 2,000 rows × 61 text columns held
// ~3 GB.
type resultLRU struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[cacheKey, sizedResult]
	bytes    int64 // resultSize of the results held, together
	maxBytes int64
}

// sizedResult is a result with the size it was counted at, so that what
// is added on the way in is exactly what is taken off on the way out, and
// the version of its row it is a copy of (query_results.seq, which every
// Put renews), so that Get can tell it is still the stored one.
type sizedResult struct {
	r    CachedResult
	size int64
	seq  int64
}

func newResultLRU(maxEntries int, maxBytes int64) (*resultLRU, error) {
	m := &resultLRU{maxBytes: maxBytes}
	// simplelru calls this for every result it lets go: evicted for the
	// count, removed, or purged.
	l, err := simplelru.NewLRU(maxEntries, func(_ cacheKey, e sizedResult) { m.bytes -= e.size })
	if err != nil {
		return nil, err
	}
	m.lru = l
	return m, nil
}

// add keeps r as the most recently used result, replacing the one under
// the same key, and lets the least recently used go until the rest fit. A
// result bigger than the whole bound is not kept at all (the one it
// replaces goes too): Postgres still has it. seq is the version of the row
// r was read from or written as.
func (m *resultLRU) add(k cacheKey, r CachedResult, seq int64) {
	size := resultSize(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	// simplelru replaces a value in place without telling us; removing it
	// first gives its bytes back.
	m.lru.Remove(k)
	if size > m.maxBytes {
		return
	}
	m.lru.Add(k, sizedResult{r, size, seq})
	m.bytes += size
	for m.bytes > m.maxBytes {
		m.lru.RemoveOldest()
	}
}

// get returns the result held under k and the version of its row; seq is
// 0, which no row has, when none is held.
func (m *resultLRU) get(k cacheKey) (r CachedResult, seq int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, _ := m.lru.Get(k)
	return e.r, e.seq
}

func (m *resultLRU) remove(k cacheKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lru.Remove(k)
}

func (m *resultLRU) purge() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lru.Purge()
}

func (m *resultLRU) held() (int, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len(), m.bytes
}

// What a held result costs besides its text, on a 64-bit platform. A
// value in an interface is boxed on the heap: a string as its header, a
// number as its 8 bytes.
const (
	sliceHeaderSize  = 24
	interfaceSize    = 16
	stringHeaderSize = 16
	boxedNumberSize  = 8
	// columnSize is a warehouse.Column's three string headers.
	columnSize = 3 * stringHeaderSize
	// entrySize is the CachedResult itself with the LRU's list element and
	// map slot around it, rounded up.
	entrySize = 512
)

// resultSize estimates the heap r holds, from one pass over its values:
// every string's bytes (as the allocator rounds them) and header, every
// interface and boxed number, every row's slice. It is cheap (no
// reflection, no encoding) and honest to within a few percent: for a wide
// answer it says 99 % of what the heap measures (BenchmarkCacheWideAnswers).
func resultSize(r CachedResult) int64 {
	n := int64(entrySize + len(r.ThreadID) + len(r.QueryID) + len(r.Query.Backend) + len(r.Query.Text) +
		len(r.Question) + len(r.Result.LimitedBy))
	for _, c := range r.Result.Columns {
		n += int64(columnSize + len(c.Name) + len(c.Kind) + len(c.Type))
	}
	n += int64(sliceHeaderSize * len(r.Result.Rows))
	for _, row := range r.Result.Rows {
		n += valuesSize(row)
	}
	return n
}

// valuesSize is the backing array of a row (or array value) and what its
// values point to.
func valuesSize(vs []any) int64 {
	n := int64(interfaceSize * len(vs))
	for _, v := range vs {
		switch v := v.(type) {
		case string:
			n += stringHeaderSize + allocSize(len(v))
		case json.Number:
			n += stringHeaderSize + allocSize(len(v))
		case int64, float64:
			n += boxedNumberSize
		case []any:
			n += sliceHeaderSize + valuesSize(v)
		}
	}
	return n
}

// allocSize is about what the allocator takes for n bytes of text: small
// objects come in size classes 16 bytes apart (a 66-byte cell takes 80),
// bigger ones in classes up to ~12 % apart.
func allocSize(n int) int64 {
	if n <= 1024 {
		return int64((n + 15) &^ 15)
	}
	return int64(n + n/16)
}
