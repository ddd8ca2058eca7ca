package web

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
)

// leadScreenshot is a copy of the chat's screenshot where the lead looks.
const leadScreenshot = "/tmp/analyticsbot-webchat.png"

// button selects the first button whose text is label.
func button(label string) chromedp.Search {
	return chromedp.Search(`//button[normalize-space(.)=` + xpathString(label) + `]`)
}

// xpathString quotes s for XPath 1.0, which has no escapes.
func xpathString(s string) string {
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return `'` + s + `'`
}

// recordProgress makes the page remember every progress label and every
// live-text chunk it shows. An answer of the scripted model can come and go
// within one frame, so waiting for the line to be on screen could miss it;
// a MutationObserver sees each change the page makes to the DOM.
const recordProgress = `(() => {
  window.__progress = [];
  window.__live = [];
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === Node.TEXT_NODE) {
          if (r.target.classList?.contains("progress-label")) __progress.push(n.data);
          if (r.target.classList?.contains("live-text")) __live.push(n.data);
        } else if (n.nodeType === Node.ELEMENT_NODE) {
          for (const l of n.querySelectorAll(".progress-label")) __progress.push(l.textContent);
        }
      }
    }
  }).observe(document.getElementById("log"), { childList: true, subtree: true });
})()`

// TestBrowserChat is the web chat as a person uses it, in headless Chromium:
// an example question answered with live progress and a table, Export CSV,
// Show SQL, a follow-up typed and sent with Enter, the keyboard's Tab order,
// and a phone-sized screen.
func TestBrowserChat(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	downloads := t.TempDir()
	tb.allowDownloads(t, downloads)

	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	chips := eval[[]string](t, tb, `[...document.querySelectorAll(".chip")].map((c) => c.textContent)`)
	require.Equal(t, demo.Questions()[:4], chips, "example chips: got %q, want the demo's questions", chips)
	tb.waitUntil(t, "the demo banner", `document.querySelector(".demo-banner")?.textContent.startsWith("Offline demo")`)

	t.Run("tab order", func(t *testing.T) {
		want := append([]string{"a:Skip to the question box", "button:New conversation"}, prefixed("button:", chips)...)
		want = append(want, "textarea:question", "button:Send")
		var got []string
		eval[chromedp.Void](t, tb, `document.activeElement?.blur()`)
		for range want {
			tb.do(t, "press Tab", chromedp.KeyEvent("\t"))
			got = append(got, eval[string](t, tb, `(() => { const e = document.activeElement;
			  return e.tagName.toLowerCase() + ":" + (e.tagName === "TEXTAREA" ? e.id : e.textContent.trim()); })()`))
		}
		assert.Equal(t, want, got, "Tab order: got %q, want %q", got, want)
		tb.do(t, "focus the first chip", chromedp.Focus(chromedp.CSS(".chip")), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t", chromedp.KeyModifiers(chromedp.ModifierShift)))
		outline := eval[string](t, tb, `getComputedStyle(document.activeElement).outlineStyle`)
		assert.NotEqual(t, "none", outline, "a chip focused by the keyboard shows its focus: got outline %q", outline)
	})

	eval[chromedp.Void](t, tb, recordProgress)
	tb.do(t, "click the example "+q2018, chromedp.Click(button(q2018)))
	tb.waitUntil(t, "the progress line says it writes SQL", `window.__progress.includes("Writing SQL…")`)
	tb.do(t, "wait for the answer's buttons", chromedp.WaitVisible(chromedp.CSS("#log .msg.bot .answer-actions")))

	t.Run("answer", func(t *testing.T) {
		progress := eval[[]string](t, tb, `window.__progress`)
		assert.Subset(t, progress, []string{"Thinking…", "Writing SQL…", "Running the query…", "Reading the results…"},
			"progress labels: got %q", progress)
		live := eval[[]string](t, tb, `window.__live`)
		assert.Greater(t, len(live), 1, "the answer's text streams in several chunks: got %q", live)
		assert.Contains(t, strings.Join(live, ""), games2018, "the streamed text: got %q", live)

		got := eval[map[string]any](t, tb, `(() => {
		  const msg = document.querySelector("#log .msg.bot");
		  return {
		    bold: msg.querySelector(".answer-text strong")?.textContent,
		    table: msg.querySelector(".answer-table") !== null,
		    progressLeft: document.querySelectorAll("#log .progress, #log .live-text").length,
		    busy: msg.querySelector("[aria-busy]") !== null,
		    status: document.getElementById("status").textContent,
		    hash: location.hash,
		    steps: [...msg.querySelectorAll(".meta .step")].map((s) => s.textContent).join("\n"),
		  };
		})()`)
		assert.Equal(t, said2018, got["bold"], "the answer's bold number, written as its table writes it")
		assert.Equal(t, false, got["table"], "a single number is said, not put in a 1×1 table")
		assert.EqualValues(t, 0, got["progressLeft"], "the answer replaces the progress line and the live text")
		assert.Equal(t, false, got["busy"], "the answer is no longer marked busy")
		assert.Equal(t, "Answer ready.", got["status"], "the live region announces the answer")
		assert.Regexp(t, `^#thread=web-[0-9a-f]+$`, got["hash"], "the thread id is kept in the URL")
		assert.Contains(t, got["steps"], "✓ Writing SQL… (generate_query", "the answer's details list its steps")
	})

	t.Run("export CSV", func(t *testing.T) {
		name, content := tb.download(t, downloads, chromedp.Click(button("Export CSV")))
		assert.Equal(t, csv2018, content, "the downloaded CSV")
		assert.True(t, strings.HasSuffix(name, ".csv"), "the file's name: got %q, want a .csv", name)
		assert.Equal(t, 1, eval[int](t, tb, `document.querySelectorAll("#log .msg").length - 1`),
			"Export CSV adds no message")
		status := eval[string](t, tb, `document.querySelector("#log .msg.bot .action-status")?.textContent ?? ""`)
		assert.Regexp(t, `^Downloaded .+\.csv \(\d+ bytes\)\.$`, status, "the answer shows the download happened")
	})

	t.Run("show SQL", func(t *testing.T) {
		tb.do(t, "click Show SQL", chromedp.Click(button("Show SQL")),
			chromedp.WaitVisible(chromedp.CSS("#log > .msg.bot:last-child pre code")))
		sql := eval[string](t, tb, `document.querySelector("#log > .msg.bot:last-child pre code").textContent`)
		assert.Equal(t, "SELECT count(*) AS games\nFROM analytics.apps\nWHERE release_year = 2018", sql, "the SQL shown, a clause a line")
		// The confirmation shows for 2 s: a loaded machine may poll past it,
		// so every text the button shows is recorded.
		eval[chromedp.Void](t, tb, `(() => { const b = document.querySelector("#log > .msg.bot:last-child .copy"); window.copyTexts = [];
		  new MutationObserver(() => window.copyTexts.push(b.textContent)).observe(b, { childList: true, characterData: true, subtree: true }); })()`)
		// The SQL scrolls into view smoothly: a click while the page still
		// moves lands where the button was.
		tb.stopsScrolling(t)
		tb.do(t, "copy the SQL", chromedp.Click(chromedp.CSS("#log > .msg.bot:last-child .code-box .copy")))
		tb.waitUntil(t, "the copy is confirmed", `window.copyTexts.some((t) => ["Copied", "Press Ctrl+C"].includes(t))`)
		inView := eval[bool](t, tb, `(() => { const r = document.querySelector("#log > .msg.bot:last-child").getBoundingClientRect();
		  return r.top < innerHeight && r.bottom > 0; })()`)
		assert.True(t, inView, "the SQL is scrolled into view")
	})

	t.Run("schedule", func(t *testing.T) {
		last := `document.querySelector("#log > .msg.bot:last-child").textContent`
		tb.do(t, "click Schedule", chromedp.Click(button("Schedule")))
		tb.waitUntil(t, "the presets", last+`.includes("When should I send you")`)
		tb.do(t, "choose a preset", chromedp.Click(button("Every Monday at 09:00")))
		tb.waitUntil(t, "the confirmation", last+`.includes("Shall I save it?")`)
		assert.Contains(t, eval[string](t, tb, last), "I'll post “"+q2018+"” in this conversation every Monday at 09:00 (UTC)")
		tb.do(t, "save it", chromedp.Click(button("Save schedule")))
		tb.waitUntil(t, "saved", last+`.includes("Saved: I'll post")`)
		thread := strings.TrimPrefix(eval[string](t, tb, `decodeURIComponent(location.hash)`), "#thread=")
		require.NotEmpty(t, thread, "the conversation's thread")
		var n int
		require.NoError(t, b.DB().Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM schedules WHERE state = 'active' AND spec = '0 9 * * 1' AND source_thread = $1`, thread).Scan(&n))
		assert.Equal(t, 1, n, "the schedule of this conversation is saved, active")
	})

	t.Run("feedback", func(t *testing.T) {
		first := `document.querySelector("#log .msg.bot")`
		// The first answer is far above the last: bring its 👎 into view
		// and let the page settle, or a click while the page still moves
		// (the last answer's scroll) lands where the button was.
		eval[chromedp.Void](t, tb, first+`.querySelector('.feedback[aria-label="This answer is wrong"]').scrollIntoView({ block: "center" })`)
		tb.stopsScrolling(t)
		tb.do(t, "click 👎", chromedp.Click(chromedp.CSS(`#log .msg.bot .feedback[aria-label="This answer is wrong"]`)),
			chromedp.WaitVisible(chromedp.CSS("#log .msg.bot .feedback-note textarea")))
		assert.Equal(t, "true", eval[string](t, tb, first+`.querySelector('.feedback[aria-label="This answer is wrong"]').getAttribute("aria-pressed")`),
			"the 👎 stays pressed")
		tb.do(t, "say what was wrong", chromedp.SendKeys(chromedp.CSS("#log .msg.bot .feedback-note textarea"), "counts DLC"),
			chromedp.Click(chromedp.CSS("#log .msg.bot .feedback-note button")))
		tb.waitUntil(t, "the note is thanked", first+`.querySelector(".feedback-status").textContent.includes("added your note")`)
		assert.Zero(t, eval[int](t, tb, `document.querySelectorAll(".feedback-note").length`), "the note box closes")
		var note string
		require.NoError(t, b.DB().Pool().QueryRow(context.Background(), `SELECT note FROM feedback WHERE rating = -1`).Scan(&note))
		assert.Equal(t, "counts DLC", note)
	})

	t.Run("follow-up with Enter", func(t *testing.T) {
		hash := eval[string](t, tb, `location.hash`)
		tb.do(t, "type a follow-up and press Enter", chromedp.SendKeys(chromedp.CSS("#question"), "And in 2017?"), pressEnter)
		tb.waitUntil(t, "the follow-up's answer", `[...document.querySelectorAll("#log .msg.bot")].filter((m) => m.querySelector(".answer-feedback")).length === 2`)
		got := eval[map[string]any](t, tb, `(() => {
		  const answers = [...document.querySelectorAll("#log .msg.bot")].filter((m) => m.querySelector(".answer-feedback"));
		  return {
		    cell: answers[answers.length - 1].querySelector(".answer-text strong").textContent,
		    hash: location.hash,
		    input: document.getElementById("question").value,
		    focused: document.activeElement.id,
		  };
		})()`)
		assert.Equal(t, said2017, got["cell"], "the follow-up answers for 2017 in the same thread")
		assert.Equal(t, hash, got["hash"], "the follow-up stays in the thread")
		assert.Equal(t, "", got["input"], "the question box is emptied")
		assert.Equal(t, "question", got["focused"], "the question box keeps the focus")
	})

	shot := tb.screenshot(t, "webchat.png", 1024)
	if data, err := os.ReadFile(shot); assert.NoError(t, err, "read the screenshot") {
		assert.NoError(t, os.WriteFile(leadScreenshot, data, 0o644), "copy the screenshot")
		t.Logf("screenshot copy: %s", leadScreenshot)
	}

	t.Run("360 px wide", func(t *testing.T) {
		tb.do(t, "narrow the viewport", chromedp.EmulateViewport(360, 740))
		got := eval[map[string]int](t, tb, `(() => {
		  const root = document.documentElement;
		  const widest = Math.max(...[...document.querySelectorAll("header, .msg, .composer, .table-wrap, pre")]
		    .map((e) => Math.ceil(e.getBoundingClientRect().right)));
		  return { client: root.clientWidth, scroll: root.scrollWidth, widest };
		})()`)
		require.Equal(t, 360, got["client"], "the viewport is 360 px wide")
		assert.LessOrEqual(t, got["scroll"], got["client"], "no horizontal scroll at 360 px: page %d px wide", got["scroll"])
		assert.LessOrEqual(t, got["widest"], 360, "every part of the page fits in 360 px")
		tb.screenshot(t, "webchat-360.png", 360)
	})

	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}

// TestBrowserNewConversation checks that "New conversation" starts over: a
// new thread, the examples back, and a reload of a thread's URL shows its
// turns; a link to a thread that is not ours starts over too.
func TestBrowserNewConversation(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	tb.do(t, "ask", chromedp.Click(button(q2018)), chromedp.WaitVisible(chromedp.CSS("#log .answer-actions")))
	hash := eval[string](t, tb, `location.hash`)
	require.Regexp(t, `^#thread=web-[0-9a-f]+$`, hash, "the thread id is in the URL")
	tb.do(t, "show the SQL", chromedp.Click(button("Show SQL")),
		chromedp.WaitVisible(chromedp.CSS("#log .msg.bot pre")))

	tb.do(t, "reload the thread", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#log .msg.bot")))
	got := eval[[]string](t, tb, `[...document.querySelectorAll("#log .msg")].map((m) => m.textContent.trim())`)
	require.Len(t, got, 3, "the reloaded thread shows its turns as they were shown: got %q", got)
	assert.Equal(t, q2018, got[0], "the question")
	assert.Contains(t, got[1], said2018, "the answer")
	assert.Contains(t, got[1], "Assumption:", "the answer's assumptions come back with it")
	assert.Contains(t, got[2], "SELECT", "the SQL comes back as it was shown, with no message of the user's for the press")
	restored := eval[map[string]any](t, tb, `(() => {
	  const first = document.querySelector("#log .msg.bot");
	  return {
	    buttons: [...first.querySelector(".answer-actions").querySelectorAll("button")].map((b) => b.textContent),
	    feedback: first.querySelectorAll(".feedback").length,
	    code: document.querySelectorAll("#log .msg.bot pre").length,
	  };
	})()`)
	assert.Equal(t, []any{"Export CSV", "Show SQL", "Explain", "Schedule"}, restored["buttons"], "the answer's buttons come back and work")
	assert.EqualValues(t, 2, restored["feedback"], "👍 and 👎 come back")
	assert.EqualValues(t, 1, restored["code"], "the SQL is a code block again")
	tb.do(t, "press Show SQL on the restored answer", chromedp.Click(button("Show SQL")))
	tb.waitUntil(t, "a second SQL message", `document.querySelectorAll("#log .msg.bot pre").length === 2`)

	tb.do(t, "start a new conversation", chromedp.Click(button("New conversation")), chromedp.WaitVisible(chromedp.CSS(".chip")))
	assert.Equal(t, "", eval[string](t, tb, `location.hash`), "a new conversation has no thread yet")
	assert.Equal(t, 0, eval[int](t, tb, `document.querySelectorAll("#log .msg").length`), "the old messages are gone")
	assert.Equal(t, "question", eval[string](t, tb, `document.activeElement.id`), "the question box has the focus")
	assert.Empty(t, tb.problems(nil), "the page logs no errors")

	// A link to a thread that is not this identity's (another's, or one
	// the server never issued) opens a new conversation.
	tb.do(t, "open a link to a thread not ours", chromedp.Navigate(srv.URL+"/#thread="+unissuedThreadID()))
	tb.waitUntil(t, "the welcome, with no thread", `location.hash === "" && !!document.querySelector(".welcome .chip")`)
	assert.Empty(t, tb.problems(func(m chromedp.ConsoleMessage) bool {
		return strings.Contains(m.Text, "404") // the refused thread
	}), "the page logs no errors but the 404")
}

// TestBrowserToken checks that with HTTP_TOKEN the page asks for the token,
// asks again after a wrong one, and keeps the right one for the tab.
func TestBrowserToken(t *testing.T) {
	t.Parallel()
	const token = "browser-s3cret-0123456789"
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{Token: token})

	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"))
	dialogOpen := `document.getElementById("token-dialog").open && document.getElementById("token").value === ""`
	tb.waitUntil(t, "the token dialog", dialogOpen)
	tb.do(t, "enter a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "wrong"), chromedp.Click(button("Continue")))
	tb.waitUntil(t, "the token dialog again", dialogOpen)
	tb.do(t, "enter the token", chromedp.SendKeys(chromedp.CSS("#token"), token+"\n"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	assert.Equal(t, token, eval[string](t, tb, `sessionStorage.getItem("analyticsbot.token")`), "the token is kept for the tab")

	tb.do(t, "ask", chromedp.Click(button(q2018)), chromedp.WaitVisible(chromedp.CSS("#log .answer-actions")))
	assert.Equal(t, said2018, eval[string](t, tb, `document.querySelector("#log .msg.bot .answer-text strong").textContent`),
		"the answer, asked with the token")
	assert.Empty(t, tb.problems(func(m chromedp.ConsoleMessage) bool {
		return strings.Contains(m.Text, "401") // the refused requests before the token
	}), "the page logs no errors but the 401s")
}

// prefixed returns each of items with prefix before it.
func prefixed(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
}
