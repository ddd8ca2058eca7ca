package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/demo"
)

// Issue 16's web figure: 200 conversations at once against a model that
// takes 500 ms per call, through POST /api/chat/stream with the server's
// default settings, as `serve` runs it. Nothing retries: a refused request
// (503) counts as refused. Targets are printed, never asserted.
const (
	webLoadThreads   = 200
	webLoadCallDelay = 500 * time.Millisecond
)

// BenchmarkLoad200Web: refused requests, errors (an error event, or a
// stream that ends without an answer with a result), and p50/p99 of the
// time from the request to the answer's message_end.
func BenchmarkLoad200Web(b *testing.B) {
	bt := newTestBot(b, slowDemoScript(webLoadCallDelay))
	srv := newTestServer(b, bt, Config{})
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: webLoadThreads}}
	questions := demo.Questions()
	var (
		turns           []time.Duration
		refused, failed int
		wall            time.Duration
	)
	cpu0 := processCPU(b)
	var mem0, mem1 runtime.MemStats
	runtime.ReadMemStats(&mem0)
	for b.Loop() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		ready := make(chan struct{})
		for th := range webLoadThreads {
			wg.Go(func() {
				<-ready
				start := time.Now()
				status, ok := askStream(client, srv.URL, questions[th%len(questions)])
				d := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case status == http.StatusServiceUnavailable:
					refused++
				case !ok:
					failed++
				default:
					turns = append(turns, d)
				}
			})
		}
		begin := time.Now()
		close(ready)
		wg.Wait()
		wall += time.Since(begin)
	}
	cpu := processCPU(b) - cpu0
	runtime.ReadMemStats(&mem1)
	slices.Sort(turns)
	at := func(q float64) float64 {
		if len(turns) == 0 {
			return 0
		}
		return float64(turns[min(len(turns)-1, int(q*float64(len(turns))))].Milliseconds())
	}
	b.ReportMetric(at(0.50), "turn-p50-ms")
	b.ReportMetric(at(0.99), "turn-p99-ms")
	b.ReportMetric(float64(refused), "refused")
	b.ReportMetric(float64(failed), "errors")
	b.ReportMetric(float64(len(turns))/wall.Seconds(), "turns/s")
	if len(turns) > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(turns)), "cpu-ms/turn")
		b.ReportMetric(float64(mem1.Mallocs-mem0.Mallocs)/float64(len(turns)), "allocs/turn")
	}
	b.Logf("web load: %d conversations × %s per model call, default settings: %d answered, %d refused (503), %d errors; turn p50 %.0f ms p99 %.0f ms",
		webLoadThreads, webLoadCallDelay, len(turns), refused, failed, at(0.50), at(0.99))
}

// processCPU is the CPU time (user and system) the test process has used
// so far: the server, the bot and the load's clients, but not Postgres.
// Issue 31's figure is its growth over the load divided by the turns.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// askStream asks question in a new thread and reads the stream to its
// end: the status, and whether it ended in an answer with a result.
func askStream(client *http.Client, base, question string) (int, bool) {
	body, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": question}}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/chat/stream", bytes.NewReader(body))
	if err != nil {
		return 0, false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, false
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4<<10), 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		// The progress events need no decoding: the figure is the bot's
		// CPU, and the client's is counted in it.
		if isProgress(data) {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Debug struct {
				ErrorKind string `json:"errorKind"`
			} `json:"debug"`
		}
		if json.Unmarshal(data, &ev) != nil {
			return resp.StatusCode, false
		}
		switch ev.Type {
		case "error":
			return resp.StatusCode, false
		case "message_end":
			return resp.StatusCode, ev.Debug.ErrorKind == ""
		}
	}
	return resp.StatusCode, false
}

// isProgress reports whether data is a status, node_result or text_delta
// event (the events' JSON begins with their type).
func isProgress(data []byte) bool {
	for _, p := range [][]byte{[]byte(`{"type":"text_delta"`), []byte(`{"type":"status"`), []byte(`{"type":"node_result"`)} {
		if bytes.HasPrefix(data, p) {
			return true
		}
	}
	return false
}

// slowDemoScript is the demo script with every model call taking d.
func slowDemoScript(d time.Duration) string {
	return regexp.MustCompile(`(?m)^(\s*)- step: (\w+)\n`).ReplaceAllString(string(demo.Script()), "$1- step: $2\n$1  delay: "+d.String()+"\n")
}
