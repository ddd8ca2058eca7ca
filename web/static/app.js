// The web chat: asks questions over the streaming API, shows progress and the answer (the reply
// model, drawn by answer.js), runs the answer's buttons, and keeps the thread the server issued in the URL hash so a
// reload, or the link opened with the same token, shows the same conversation; anyone else's link starts a new one.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const log = $("log");
  const form = $("composer");
  const input = $("question");
  const sendBtn = $("send");
  const stopBtn = $("stop");
  const announcer = $("status");

  let threadId = threadFromHash();
  let running = null; // the AbortController of the answer being streamed

  function threadFromHash() {
    const m = location.hash.match(/^#thread=(.+)$/);
    try {
      return m ? decodeURIComponent(m[1]) : "";
    } catch {
      return ""; // a mangled link starts a new conversation
    }
  }

  function setThread(id) {
    threadId = id || "";
    const hash = threadId ? "#thread=" + encodeURIComponent(threadId) : "";
    history.replaceState(null, "", location.pathname + location.search + hash);
  }

  function el(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function announce(text) {
    announcer.textContent = text;
  }

  // following is whether the reader was at the bottom when they last scrolled; growing content
  // fires no scroll event, so this is read before the growth, as it must be.
  let following = true;
  window.addEventListener("scroll", () => {
    const root = document.documentElement;
    following = root.scrollHeight - root.scrollTop - root.clientHeight < 160;
  }, { passive: true });

  /** scrollDown follows a growing answer, unless the reader has scrolled up to read something. */
  function scrollDown(force) {
    if (force || following) window.scrollTo(0, document.documentElement.scrollHeight);
  }

  /** message appends an empty chat message and returns its body. */
  function message(role) {
    const art = el("article", "msg " + role);
    art.setAttribute("aria-label", role === "user" ? "You said" : "analyticsbot said");
    const body = art.appendChild(el("div", "bubble"));
    log.append(art);
    scrollDown(role === "user");
    return body;
  }

  function userMessage(text) {
    message("user").append(el("p", "user-text", text));
  }

  /** botReply appends a bot message showing a reply, or text when there is none. */
  function botReply(reply, text) {
    const body = message("bot");
    fill(body, reply, text);
    return body;
  }

  function fill(body, reply, text) {
    if (reply?.query_id && reply.kind !== "query") body.dataset.queryId = reply.query_id;
    const frag = Answer.render(reply, { onAction, onAsk: ask });
    if (frag.childNodes.length) body.append(frag);
    else body.append(el("p", "answer-text", text || "(empty answer)"));
    for (const pre of body.querySelectorAll("pre")) addCopyButton(pre);
    requestAnimationFrame(() => scrollHints(body));
  }

  /** scrollHints says under each table wider than its message that it scrolls sideways. */
  function scrollHints(root) {
    for (const wrap of root.querySelectorAll(".table-wrap")) {
      const hint = wrap.nextElementSibling?.classList.contains("scroll-hint") ? wrap.nextElementSibling : null;
      const scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
      if (scrolls && !hint) wrap.after(el("p", "scroll-hint", "Scroll sideways for more columns →"));
      if (!scrolls && hint) hint.remove();
    }
  }
  let hintFrame = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(hintFrame);
    hintFrame = requestAnimationFrame(() => scrollHints(log));
  });

  /** addCopyButton puts a Copy button on a code block (the SQL of an answer). */
  function addCopyButton(pre) {
    const button = el("button", "copy", "Copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy the code");
    button.addEventListener("click", async () => {
      const text = pre.querySelector("code")?.textContent ?? pre.textContent;
      // A clipboard that never answers (a permission prompt nobody sees) counts as none.
      const written = navigator.clipboard
        ? Promise.race([
          navigator.clipboard.writeText(text).then(() => true, () => false),
          new Promise((done) => setTimeout(() => done(false), 1500)),
        ])
        : Promise.resolve(false);
      if (await written) {
        button.textContent = "Copied";
        announce("Copied to the clipboard.");
      } else {
        // No clipboard (an insecure origin, no permission): select the code for Ctrl+C.
        getSelection().selectAllChildren(pre);
        button.textContent = "Press Ctrl+C";
      }
      setTimeout(() => (button.textContent = "Copy"), 2000);
    });
    // The button sits in a bar above the code, so it never covers the code on a narrow screen.
    const box = el("div", "code-box");
    const bar = el("div", "code-bar");
    bar.append(el("span", "code-lang", pre.dataset.lang || "Code"), button);
    pre.replaceWith(box);
    box.append(bar, pre);
  }

  /** actionStatus shows, under the answer whose button was pressed, what the press did. */
  function actionStatus(button, text) {
    const answer = button.closest(".bubble");
    if (!answer) return;
    let p = answer.querySelector(":scope > .action-status");
    if (!p) p = answer.appendChild(el("p", "action-status"));
    p.textContent = text;
  }

  function botError(text) {
    const body = message("bot");
    body.classList.add("error");
    body.append(el("p", "", "⚠️ " + text));
  }

  function formatBytes(n) {
    if (n < 1024) return n + " bytes";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
    return (n / 1024 / 1024).toFixed(1) + " MB";
  }

  function formatMs(ms) {
    if (typeof ms !== "number" || !isFinite(ms)) return "";
    return ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms) + " ms";
  }

  /** pending is the bot message of an answer being streamed: progress, live text, then the answer. */
  function pending() {
    const body = message("bot");
    body.setAttribute("aria-busy", "true");
    const progress = body.appendChild(el("div", "progress"));
    progress.append(el("span", "spinner"));
    const label = progress.appendChild(el("span", "progress-label", "Thinking…"));
    const live = body.appendChild(el("div", "live-text"));
    const steps = [];

    function finish() {
      body.removeAttribute("aria-busy");
      progress.remove();
      live.remove();
    }

    return {
      status(ev) {
        label.textContent = ev.label || ev.node;
        steps.push({ node: ev.node, label: ev.label || ev.node, outcome: "", ms: null });
        announce(label.textContent);
      },
      nodeResult(ev) {
        let s = steps.findLast((x) => x.node === ev.node && !x.outcome);
        if (!s) steps.push((s = { node: ev.node, label: ev.node }));
        s.outcome = ev.outcome || "";
        s.ms = ev.ms;
        if (ev.rows !== undefined) s.rows = ev.rows;
      },
      delta(ev) {
        live.append(ev.text || "");
        scrollDown();
      },
      end(ev) {
        finish();
        if (ev.thread_id) setThread(ev.thread_id);
        fill(body, ev.reply, ev.text);
        const how = { timing: ev.timing, debug: ev.debug, steps };
        body.append(details(how));
        remember(ev, how);
        announce("Answer ready.");
        scrollDown();
      },
      fail(text) {
        finish();
        body.classList.add("error");
        body.append(el("p", "", "⚠️ " + text));
        announce(text);
        scrollDown();
      },
    };
  }

  /**
   * remember keeps an answer's "How it was answered" for this tab (sessionStorage), so a reload
   * shows it again: the server keeps the answer, not the steps this tab watched.
   */
  function remember(ev, how) {
    if (!threadId) return;
    try {
      const key = "analyticsbot.how." + threadId;
      const all = JSON.parse(sessionStorage.getItem(key) || "{}");
      all[turnKey(ev.query_id, ev.reply?.question, ev.text)] = how;
      sessionStorage.setItem(key, JSON.stringify(all));
    } catch {
      // A full or disabled storage costs only the details after a reload.
    }
  }

  function recalled(turn) {
    try {
      const all = JSON.parse(sessionStorage.getItem("analyticsbot.how." + threadId) || "{}");
      return all[turnKey(turn.query_id || turn.reply?.query_id, turn.reply?.question, turn.reply ? plainOf(turn.reply) : turn.bot)] || null;
    } catch {
      return null;
    }
  }

  /** turnKey names an answer: by its query id, else by its question and text. */
  function turnKey(queryId, question, text) {
    return queryId ? "q:" + queryId : "t:" + (question || "") + "\n" + (text || "");
  }

  function plainOf(reply) {
    return (reply.text || []).map((s) => s.text ?? "").join("").trim();
  }

  /** details is the folded "how this was answered" line: time, steps and model use. */
  function details({ timing, debug, steps }) {
    const ev = { timing, debug };
    const d = el("details", "meta");
    const t = ev.timing || {};
    // The answer says how long it took; the details only split that time, so one answer shows
    // one timing.
    const parts = [];
    if (t.llmMs !== undefined) parts.push("model " + formatMs(t.llmMs));
    if (t.dbMs !== undefined) parts.push("database " + formatMs(t.dbMs));
    d.append(el("summary", "", parts.length ? "How it was answered: " + parts.filter(Boolean).join(" · ") : "How it was answered"));
    const list = d.appendChild(el("ol", "steps"));
    for (const s of steps) {
      const mark = s.outcome === "ok" ? "✓" : s.outcome ? "✗" : "·";
      const rows = s.rows !== undefined ? `, ${s.rows} rows` : "";
      list.append(el("li", "step " + (s.outcome || "open"), `${mark} ${s.label} (${s.node}${formatMs(s.ms) ? ", " + formatMs(s.ms) : ""}${rows})`));
    }
    const dbg = ev.debug;
    if (dbg) {
      const used = [`${dbg.llmCalls ?? 0} model calls`, `${dbg.promptTokens ?? 0} prompt + ${dbg.completionTokens ?? 0} completion tokens`];
      if (dbg.textDeltaCount) used.push(`${dbg.textDeltaCount} streamed chunks`);
      d.append(el("p", "", used.join(" · ")));
    }
    return d;
  }

  async function ask(question) {
    question = question.trim();
    if (!question || running) return;
    document.querySelector(".welcome")?.remove();
    userMessage(question);
    input.value = "";
    autosize();
    const view = pending();
    const ctrl = new AbortController();
    running = ctrl;
    setRunning(true);
    let ended = false;
    try {
      const body = { messages: [{ role: "user", content: question }] };
      if (threadId) body.thread_id = threadId;
      await Api.stream(body, (ev) => {
        switch (ev.type) {
          case "status": return view.status(ev);
          case "node_result": return view.nodeResult(ev);
          case "text_delta": return view.delta(ev);
          case "message_end": ended = true; view.end(ev); return true;
          case "error": ended = true; view.fail(ev.message || "Something went wrong."); return true;
        }
      }, ctrl.signal);
      if (!ended) view.fail("The answer was cut off. Please ask again.");
    } catch (err) {
      if (err.name === "AbortError") view.fail("Stopped.");
      else view.fail(err instanceof ApiError ? err.message : "Could not reach the server. Is it running?");
    } finally {
      // A new conversation may have dropped this run and started another meanwhile.
      if (running === ctrl) {
        running = null;
        setRunning(false);
      }
    }
  }

  /** cancelRun stops the answer being streamed, if any, and frees the composer at once. */
  function cancelRun() {
    if (!running) return;
    running.abort();
    running = null;
    setRunning(false);
  }

  function setRunning(on) {
    const fromSend = document.activeElement === sendBtn;
    sendBtn.hidden = on;
    stopBtn.hidden = !on;
    // Keep the keyboard where it was: only a click on Send, which disappears, moves focus to Stop.
    if (on && fromSend) stopBtn.focus({ preventScroll: true });
    if (!on && (document.activeElement === stopBtn || document.activeElement === document.body)) input.focus();
  }

  /**
   * buttons are the server's buttons under answers (GET /api/buttons), by action id: which of them
   * download a file. Fetched once; a page that cannot load them still follows the server's
   * Content-Disposition.
   */
  let buttons = null;
  async function buttonInfo(action) {
    if (!buttons) {
      try {
        const data = await Api.getJSON("/api/buttons");
        buttons = new Map((data.buttons || []).map((b) => [b.action, b]));
      } catch {
        return {};
      }
    }
    return buttons.get(action) || {};
  }

  /**
   * onFeedback records a 👍 or 👎: the pressed button stays pressed, the thanks shows under the
   * answer, and a 👎 opens a box for what was wrong.
   */
  async function onFeedback({ action, value, button }) {
    const group = button.closest(".answer-feedback");
    const answer = button.closest(".bubble") || group?.parentElement;
    const status = noteArea(answer, "feedback-status");
    button.disabled = true;
    try {
      const res = await Api.postJSON("/api/actions", { thread_id: threadId, action, value });
      const data = await res.json();
      for (const b of group?.querySelectorAll(".feedback") || []) b.setAttribute("aria-pressed", String(b === button));
      status.textContent = data.text || "Thanks.";
      announce(status.textContent);
      if (data.ask_note) askNote(answer, data.query_id);
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message : "Could not reach the server.";
    } finally {
      button.disabled = false;
    }
  }

  /** noteArea returns the answer's element of class cls, made on first use. */
  function noteArea(answer, cls) {
    let n = answer?.querySelector("." + cls);
    if (!n) {
      n = el("div", cls);
      n.setAttribute("role", "status");
      (answer || log).append(n);
    }
    return n;
  }

  /** askNote shows a small form under the answer: what was wrong, sent as the 👎's note. */
  function askNote(answer, queryId) {
    if (!answer || answer.querySelector(".feedback-note")) return;
    const form = el("form", "feedback-note");
    const label = el("label", "", "What was wrong? (optional)");
    const box = el("textarea");
    box.rows = 2;
    box.maxLength = 2000;
    label.append(box);
    const send = el("button", "btn", "Send");
    send.type = "submit";
    form.append(label, send);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const note = box.value.trim();
      if (!note) return;
      send.disabled = true;
      try {
        const res = await Api.postJSON("/api/actions", { thread_id: threadId, action: "feedback_note", value: queryId, note });
        const data = await res.json();
        noteArea(answer, "feedback-status").textContent = data.text || "Thanks.";
        form.remove();
      } catch (err) {
        noteArea(answer, "feedback-status").textContent = err instanceof ApiError ? err.message : "Could not reach the server.";
        send.disabled = false;
      }
    });
    answer.append(form);
    box.focus({ preventScroll: true });
  }

  /** onAction runs an answer's button: Export CSV downloads the file, Show SQL adds a message. */
  async function onAction({ action, value, button }) {
    if (action === "feedback") return onFeedback({ action, value, button });
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const info = await buttonInfo(action);
      const res = await Api.postJSON("/api/actions", { thread_id: threadId, action, value });
      const attachment = /^\s*attachment/i.test(res.headers.get("Content-Disposition") || "");
      if (info.download || attachment) {
        const blob = await res.blob();
        const name = download(blob, filenameOf(res) || "result.csv");
        const note = exportNoteOf(res);
        actionStatus(button, "Downloaded " + name + " (" + formatBytes(blob.size) + ")." + (note ? " " + note : ""));
        announce("Downloaded " + name + "." + (note ? " " + note : ""));
        return;
      }
      const data = await res.json();
      const shown = botReply(data.reply, data.text || data.sql);
      shown.closest(".msg").scrollIntoView({ block: "nearest", behavior: "smooth" });
      announce(data.sql ? "SQL shown." : "Done.");
    } catch (err) {
      botError(err instanceof ApiError ? err.message : "Could not reach the server.");
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  }

  function filenameOf(res) {
    const cd = res.headers.get("Content-Disposition") || "";
    const star = cd.match(/filename\*=UTF-8''([^;]+)/i);
    if (star) return decodeURIComponent(star[1]);
    const m = cd.match(/filename="?([^";]+)"?/i);
    return m ? m[1] : "";
  }

  /** exportNoteOf is what the server says of an export cut short (X-Export-Note), or "". */
  function exportNoteOf(res) {
    const note = res.headers.get("X-Export-Note") || "";
    try {
      return decodeURIComponent(note);
    } catch {
      return "";
    }
  }

  function download(blob, name) {
    const url = URL.createObjectURL(blob);
    const a = el("a");
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    // The download has taken the blob by the time the click handler returns; free it after.
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return name;
  }

  /** info is what the server says of itself (domain, example questions, demo mode), asked once. */
  let infoPromise = null;
  function info() {
    infoPromise ??= Api.getJSON("/api/examples").catch((err) => {
      infoPromise = null;
      throw err;
    });
    return infoPromise;
  }

  /** demoBanner says, on every page of a demo server, that a scripted model answers. */
  async function demoBanner() {
    try {
      if (!(await info()).demo || document.querySelector(".demo-banner")) return;
      const p = el("p", "demo-banner",
        "Offline demo: no language model is connected, so only the suggested questions, and follow-ups that change their year (“And in 2017?”), are answered. Set LLM_PROVIDER and a key to ask anything; the README shows how.");
      p.setAttribute("role", "note");
      document.querySelector("header.top").after(p);
    } catch {
      // The welcome or the next request says what is wrong with the server.
    }
  }

  /** welcome shows the domain and the example questions as chips. */
  async function welcome() {
    const box = el("section", "welcome");
    box.setAttribute("aria-label", "Example questions");
    box.append(el("h2", "", "Ask a question about your data"));
    const chips = box.appendChild(el("div", "chips"));
    log.append(box);
    try {
      const data = await info();
      if (data.domain) box.querySelector("h2").textContent = "Ask a question about " + data.domain;
      for (const q of data.examples || []) {
        const chip = chips.appendChild(el("button", "chip", q));
        chip.type = "button";
        chip.addEventListener("click", () => ask(q));
      }
      if (!chips.childNodes.length) {
        chips.remove(); // no empty row where chips would be
        box.append(el("p", "hint", "Type a question below and press Enter."));
      }
    } catch (err) {
      box.append(el("p", "hint", err instanceof ApiError ? err.message : "Could not load example questions."));
    }
  }

  /**
   * showTurn shows a saved turn as it was shown live: a question and its answer (with how it was
   * answered, when this tab saw it); a button's press as what the press showed, with no message
   * of the user's (Show SQL's query, a download's line under its answer, a rating's thanks).
   */
  function showTurn(t, presses) {
    const press = presses.get(t.intent);
    const pressed = (press && t.user === press.label) || (/^feedback/.test(t.intent) && t.user === "Feedback");
    if (!pressed) {
      userMessage(t.user || "");
      const body = botReply(t.reply, t.bot);
      const how = recalled(t);
      if (how) body.append(details(how));
      return;
    }
    const queryId = t.reply?.query_id || t.query_id;
    const answer = queryId ? [...log.querySelectorAll(".bubble[data-query-id]")].findLast((b) => b.dataset.queryId === queryId) : null;
    const line = t.reply ? plainOf(t.reply) : t.bot;
    if (answer && (press?.download || /^feedback/.test(t.intent))) {
      answer.append(el("p", /^feedback/.test(t.intent) ? "feedback-status" : "action-status", line));
      return;
    }
    botReply(t.reply, t.bot);
  }

  /** buttonList is the server's buttons, or none when they cannot be loaded. */
  async function buttonList() {
    await buttonInfo("");
    return buttons ? [...buttons.values()] : [];
  }

  /** restore shows the saved turns of the thread in the URL, or the welcome when there is none. */
  async function restore() {
    if (!threadId) return welcome();
    try {
      const data = await Api.getJSON("/api/threads/" + encodeURIComponent(threadId));
      if (!data.turns?.length) return welcome();
      const presses = new Map();
      for (const b of await buttonList()) presses.set(b.action, b);
      for (const t of data.turns) showTurn(t, presses);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        setThread("");
        return welcome();
      }
      botError(err instanceof ApiError ? err.message : "Could not load the conversation.");
    }
  }

  function newConversation() {
    cancelRun();
    setThread("");
    log.replaceChildren();
    announce("New conversation.");
    welcome();
    input.focus();
  }

  function autosize() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 200) + "px";
  }

  /**
   * askToken shows the token dialog and resolves to the token, or null when cancelled. Requests
   * refused at the same time share one dialog.
   */
  let tokenPrompt = null;
  function askToken() {
    if (tokenPrompt) return tokenPrompt;
    const dlg = $("token-dialog");
    const field = $("token");
    field.value = "";
    tokenPrompt = new Promise((resolve) => {
      dlg.addEventListener("close", () => {
        tokenPrompt = null;
        resolve(dlg.returnValue === "ok" && field.value.trim() ? field.value.trim() : null);
      }, { once: true });
      dlg.returnValue = ""; // Esc closes without setting it: an earlier "ok" must not count
      dlg.showModal();
      field.focus();
    });
    return tokenPrompt;
  }

  Api.onUnauthorized = askToken;
  $("token-cancel").addEventListener("click", () => $("token-dialog").close("cancel"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    ask(input.value);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask(input.value);
    }
  });
  input.addEventListener("input", autosize);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && running && !$("token-dialog").open) running.abort();
  });
  stopBtn.addEventListener("click", () => running?.abort());
  $("new-conversation").addEventListener("click", newConversation);
  window.addEventListener("hashchange", () => {
    if (threadFromHash() === threadId) return;
    cancelRun();
    threadId = threadFromHash();
    log.replaceChildren();
    restore();
  });

  // For the browser test and for trying replies by hand in the console.
  window.analyticsbot = { renderReply: (reply) => botReply(reply, "") };
  restore();
  demoBanner();
})();
