package slackapp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSecret is the signing secret FuzzVerified's app is configured with.
const fuzzSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// Slack's limit on a request's age, and a margin the fuzz target leaves at
// its edges so that the seconds the test itself takes cannot flip a verdict.
const (
	signatureWindow = 5 * time.Minute
	windowMargin    = 10 * time.Second
)

// The mutations FuzzVerified applies to a validly signed request.
const (
	keepRequest = iota
	mutateBody
	mutateTimestamp
	mutateSignature
	mutations
)

// slackSignature computes Slack's v0 signature of body sent at timestamp,
// independently of the code under test: HMAC-SHA256 keyed with the secret
// over "v0:<timestamp>:<body>", as lower-case hex after "v0=".
func slackSignature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + timestamp + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// FuzzVerified fuzzes the signature check every HTTP request from Slack
// passes before its body is parsed. The request's timestamp is skew seconds
// from now, written with the given prefix and suffix. An empty sig means the
// test signs the request itself and then applies one mutation (chosen by
// mutation) at byte at of the body, timestamp or signature; any other sig is
// sent as the signature header as it is. Properties:
//
//   - the check never panics, and a refused request gets 401 and reaches no
//     handler;
//   - a request that reaches the handler carries, for exactly the body the
//     handler gets, the signature computed here with crypto/hmac (hex case
//     aside: it encodes the same MAC), and a timestamp at most 5 minutes
//     from the time of the check;
//   - a validly signed request with a plain timestamp well inside the
//     window is accepted, and any change to its body, timestamp or
//     signature is refused.
//
// Run it with
//
//	go test -run '^$' -fuzz FuzzVerified -fuzztime 2m ./slackapp
func FuzzVerified(f *testing.F) {
	event := []byte(`{"token":"x","type":"event_callback","event_id":"Ev1","event":{"type":"app_mention","text":"hi"}}`)
	command := []byte("command=%2Fask&text=top+apps&user_id=U1&channel_id=C1")
	for m := range mutations {
		f.Add(event, int64(0), "", "", "", uint8(m), uint16(7), byte(1))
		f.Add(command, int64(-120), "", "", "", uint8(m), uint16(40), byte(0x80))
		f.Add([]byte{}, int64(200), "", "", "", uint8(m), uint16(0), byte(0xff))
	}
	f.Add(event, int64(-301), "", "", "", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(301), "", "", "", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(-1<<62), "", "", "", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(0), "+", "", "", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(0), "0", " ", "", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(0), "", "", "v0=", uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(0), "", "", "v0="+strings.Repeat("0", 64), uint8(keepRequest), uint16(0), byte(0))
	f.Add(event, int64(0), "", "", "v1=zz", uint8(keepRequest), uint16(0), byte(0))

	a := &App{cfg: Config{SigningSecret: fuzzSecret}, log: quietLog()}
	f.Fuzz(func(t *testing.T, body []byte, skew int64, tsPrefix, tsSuffix, sig string, mutation uint8, at uint16, flip byte) {
		var reached bool
		var handed []byte
		h := a.verified("events_api", func(w http.ResponseWriter, _ *http.Request, body []byte, _ time.Time) {
			reached, handed = true, body
			w.WriteHeader(http.StatusOK)
		})

		mutation %= mutations
		start := time.Now()
		ts := tsPrefix + strconv.FormatInt(start.Unix()+skew, 10) + tsSuffix
		sent := bytes.Clone(body)
		if sig == "" {
			sig = slackSignature(fuzzSecret, ts, body)
			sent, ts, sig = mutate(mutation, int(at), flip, sent, ts, sig)
		} else {
			mutation = keepRequest
		}
		req := httptest.NewRequest(http.MethodPost, "/slack/events", bytes.NewReader(sent))
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		end := time.Now()

		if !reached {
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("refused request (timestamp %q, signature %q) got status %d, want 401", ts, sig, rec.Code)
			}
			inside := int64((signatureWindow - windowMargin) / time.Second)
			if mutation == keepRequest && tsPrefix == "" && tsSuffix == "" && sig == slackSignature(fuzzSecret, ts, sent) &&
				skew > -inside && skew < inside {
				t.Fatalf("validly signed request with timestamp %q, %d s from now, was refused", ts, skew)
			}
			return
		}
		if mutation != keepRequest {
			t.Fatalf("mutation %d of a signed request (body %q, timestamp %q, signature %q) was accepted", mutation, sent, ts, sig)
		}
		if !bytes.Equal(handed, sent) {
			t.Fatalf("handler got body %q, but the request carried %q", handed, sent)
		}
		if want := slackSignature(fuzzSecret, ts, handed); !strings.EqualFold(sig, want) {
			t.Fatalf("accepted signature %q for timestamp %q and body %q, want %q", sig, ts, handed, want)
		}
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			t.Fatalf("accepted timestamp %q, which is not a number of seconds: %v", ts, err)
		}
		// Whole seconds around the check: the verifier compares with a
		// clock reading between start and end, fractions included.
		window := int64(signatureWindow / time.Second)
		if sec < start.Unix()-window || sec > end.Unix()+1+window {
			t.Fatalf("accepted timestamp %q, more than %v from the check at %v", ts, signatureWindow, start)
		}
	})
}

// mutate changes one part of a signed request, chosen by mutation: the body
// byte at at (or a byte added to an empty body), a byte of the timestamp
// text, or a byte of the MAC the signature encodes. flip is XORed in, with
// its lowest bit set so that the byte always changes. keepRequest returns
// the request as it is.
func mutate(mutation uint8, at int, flip byte, body []byte, ts, sig string) ([]byte, string, string) {
	flip |= 1
	switch mutation {
	case mutateBody:
		if len(body) == 0 {
			return []byte{flip}, ts, sig
		}
		body[at%len(body)] ^= flip
	case mutateTimestamp:
		b := []byte(ts)
		b[at%len(b)] ^= flip
		ts = string(b)
	case mutateSignature:
		mac, err := hex.DecodeString(strings.TrimPrefix(sig, "v0="))
		if err != nil {
			panic("mutate: the test's own signature is not hex: " + err.Error())
		}
		mac[at%len(mac)] ^= flip
		sig = "v0=" + hex.EncodeToString(mac)
	}
	return body, ts, sig
}
