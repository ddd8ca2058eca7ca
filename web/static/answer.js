// The bot's reply to DOM: the answer model as the server sends it (`reply` in message_end,
// /api/threads and /api/actions) drawn for the page: text with emphasis and links, a chart as
// inline SVG, a sortable table that pages long results, notes, assumptions and the status line,
// buttons, questions to ask next, 👍/👎, and the query behind an answer. Replies quote the model
// and the data, so every text becomes a text node; nothing here parses HTML.
"use strict";

(function (global) {
  function el(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = String(text);
    return n;
  }

  /** safeURL returns url when it is http(s); otherwise "", so javascript: or data: never reaches an href. */
  function safeURL(url) {
    const u = String(url ?? "").trim();
    return /^https?:\/\//i.test(u) ? u : "";
  }

  /** link is an anchor opening url in a new tab, or plain text when url is not safe. */
  function link(url, text) {
    const href = safeURL(url);
    if (!href) return document.createTextNode(String(text));
    const a = el("a", "", text);
    Object.assign(a, { href, target: "_blank", rel: "noopener noreferrer" });
    return a;
  }

  /** text draws spans ({text, bold, italic, code, link}) into a paragraph that keeps line breaks. */
  function text(spans, className) {
    const p = el("div", "answer-text" + (className ? " " + className : ""));
    for (const s of Array.isArray(spans) ? spans : []) {
      let node = s.link ? link(s.link, s.text ?? "") : document.createTextNode(String(s.text ?? ""));
      for (const [key, tag] of [["code", "code"], ["italic", "em"], ["bold", "strong"]]) {
        if (s[key]) {
          const w = el(tag);
          w.append(node);
          node = w;
        }
      }
      p.append(node);
    }
    return p;
  }

  /** button is a button under the answer; pressing it calls ctx.onAction. */
  function button(label, action, value, ctx) {
    const b = el("button", "btn", label);
    b.type = "button";
    b.dataset.action = action;
    b.dataset.value = value;
    b.addEventListener("click", () => ctx.onAction?.({ action, value, button: b }));
    return b;
  }

  /** asks is a heading and a row of questions; choosing one asks it in the thread (ctx.onAsk). */
  function asks(heading, questions, ctx) {
    return chipRow(heading, questions.map((q) => ({ label: q, ask: q })), ctx);
  }

  /**
   * chipRow is a heading (none when empty) and a row of chips, each showing its label and asking
   * its question in the thread when chosen: a question to try, a follow-up, or the choice of a
   * question the bot asked back, which asks the question again with the choice.
   */
  function chipRow(heading, items, ctx) {
    const box = el("div", "answer-asks");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", heading ? heading.replace(/:$/, "") : "Choices");
    if (heading) box.append(el("p", "answer-asks-heading", heading));
    const chips = box.appendChild(el("div", "chips"));
    for (const it of items) {
      const chip = chips.appendChild(el("button", "chip", it.label));
      chip.type = "button";
      if (it.ask !== it.label) chip.title = it.ask;
      chip.addEventListener("click", () => ctx.onAsk?.(it.ask));
    }
    return box;
  }

  /**
   * table draws the result: every header sorts (numbers by their value, the rest as text), and
   * results of more than 20 rows come in pages of 10, as in Slack. Cells arrive formatted
   * (separators, units, links).
   */
  function table(t, caption) {
    const cols = t.columns || [];
    const data = t.rows || [];
    const PAGE = data.length > 20 ? 10 : Math.max(data.length, 1);
    const box = el("div", "answer-table");
    const wrap = box.appendChild(el("div", "table-wrap"));
    // The wrapper scrolls a wide table sideways; as a labelled region the keyboard can scroll it too.
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", caption ? "Result: " + caption : "Result table");
    const tbl = wrap.appendChild(el("table"));
    const headRow = tbl.appendChild(el("thead")).appendChild(el("tr"));
    const body = tbl.appendChild(el("tbody"));
    const pager = el("div", "pager");
    const prev = pager.appendChild(el("button", "btn", "Previous"));
    const where = pager.appendChild(el("span", "pager-where"));
    const next = pager.appendChild(el("button", "btn", "Next"));
    prev.type = next.type = "button";
    let order = data.slice();
    let page = 0;
    const pages = () => Math.max(1, Math.ceil(order.length / PAGE));
    function cell(c, numeric) {
      const td = el("td", numeric ? "num" : "");
      td.append(c?.link ? link(c.link, c.text ?? "") : document.createTextNode(String(c?.text ?? "")));
      return td;
    }
    function draw() {
      body.replaceChildren();
      for (const row of order.slice(page * PAGE, (page + 1) * PAGE)) {
        const tr = body.appendChild(el("tr"));
        cols.forEach((col, i) => tr.append(cell(row[i], col.numeric)));
      }
      where.textContent = (order.length ? page * PAGE + 1 : 0) + "–" + Math.min(order.length, (page + 1) * PAGE) + " of " + order.length;
      prev.disabled = page === 0;
      next.disabled = page >= pages() - 1;
    }
    const key = (row, i) => (typeof row[i]?.number === "number" ? row[i].number : String(row[i]?.text ?? ""));
    cols.forEach((col, i) => {
      const th = headRow.appendChild(el("th", col.numeric ? "num" : ""));
      th.scope = "col";
      // The readable label; the column's own name (as in the CSV and the SQL) on hover.
      const sort = th.appendChild(el("button", "sort", col.label || col.name));
      sort.type = "button";
      sort.title = col.label && col.label !== col.name ? col.name : "Sort by " + col.name;
      sort.dataset.name = col.name;
      sort.addEventListener("click", () => {
        const down = th.getAttribute("aria-sort") === "ascending";
        headRow.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        // Numbers by value, text in natural order; cells without a number (NULL) last either way.
        const numeric = cols[i].numeric;
        order = data.slice().sort((a, b) => {
          const x = key(a, i), y = key(b, i);
          if (numeric && typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
          const cmp = typeof x === "number" ? x - y : x.localeCompare(y, undefined, { numeric: true });
          return down ? -cmp : cmp;
        });
        page = 0;
        draw();
      });
    });
    prev.addEventListener("click", () => { page = Math.max(0, page - 1); draw(); });
    next.addEventListener("click", () => { page = Math.min(pages() - 1, page + 1); draw(); });
    draw();
    if (data.length > PAGE) box.append(pager);
    return box;
  }

  /** code is a block of code, focusable so the keyboard can scroll it; SQL is highlighted. */
  function code(textContent, lang) {
    const pre = el("pre");
    pre.tabIndex = 0;
    pre.dataset.lang = lang || "";
    const c = pre.appendChild(el("code"));
    if (/^sql$/i.test(lang || "")) c.append(...highlightSQL(String(textContent)));
    else c.textContent = String(textContent);
    return pre;
  }

  const SQL_WORDS = new Set(("select from where group by order having limit offset join left right inner outer full cross " +
    "on as and or not in is null like ilike between case when then else end distinct with union all intersect except " +
    "asc desc nulls first last over partition filter within true false interval extract cast exists any some using lateral").split(" "));
  /**
   * highlightSQL splits SQL into text nodes and spans (keyword, function, string, number, comment,
   * quoted name) for colour; their text joined is the SQL exactly, so copying it copies the query.
   */
  function highlightSQL(sql) {
    const out = [];
    const re = /(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_$]*)(?=(\s*\())?/g;
    let last = 0;
    for (let m; (m = re.exec(sql));) {
      let cls = "";
      if (m[1]) cls = "tok-comment";
      else if (m[2]) cls = "tok-string";
      else if (m[3]) cls = "tok-name";
      else if (m[4]) cls = "tok-number";
      else if (m[5] && SQL_WORDS.has(m[5].toLowerCase())) cls = "tok-keyword";
      else if (m[5] && m[6] !== undefined) cls = "tok-function";
      if (!cls) continue;
      if (m.index > last) out.push(document.createTextNode(sql.slice(last, m.index)));
      out.push(el("span", cls, m[0]));
      last = m.index + m[0].length;
    }
    if (last < sql.length) out.push(document.createTextNode(sql.slice(last)));
    return out;
  }

  function capitalize(s) {
    return s ? s[0].toUpperCase() + s.slice(1) : s;
  }

  /** queryHeading is the plain text of the query box's heading, as the server writes it too. */
  function queryHeading(r) {
    const lang = r.query.language || "SQL";
    return capitalize(lang) + (r.question ? " for: " + r.question : " for this answer");
  }

  /** query shows the query behind an answer (Show SQL), and for a query that is not SQL its SQL too. */
  function query(r) {
    const q = r.query;
    const box = el("div", "answer-query");
    const lang = q.language || "SQL";
    const title = box.appendChild(el("p", "answer-query-title"));
    title.append(el("strong", "", capitalize(lang) + (r.question ? " for:" : " for this answer")));
    if (r.question) title.append(" " + r.question);
    if (!String(q.text ?? "").trim()) box.append(el("p", "answer-note", "No " + lang + " was run for this answer."));
    else box.append(code(q.text, lang));
    if (lang !== "SQL") {
      const by = q.sql_by || "the backend";
      if (q.sql) {
        box.append(el("p", "answer-query-title", "SQL that " + by + " runs for it:"), code(q.sql, "SQL"));
      } else {
        box.append(el("p", "answer-note", capitalize(by) + " did not return the SQL it runs for this query."));
      }
    }
    return box;
  }

  /** context is the small print: each assumption, the verified badge, then rows · time · source. */
  function context(r) {
    const n = el("div", "answer-context");
    for (const a of r.assumptions || []) n.append(el("span", "assumption", "Assumption: " + a));
    if (r.verified) n.append(el("span", "verified", r.verified));
    if (r.status) n.append(el("span", "status", r.status));
    return n.childNodes.length ? n : null;
  }

  /** feedback is the 👍/👎 pair; a press sends action "feedback" with the rating and query id. */
  function feedback(queryId, ctx) {
    const n = el("div", "answer-feedback");
    n.setAttribute("role", "group");
    n.setAttribute("aria-label", "Rate this answer");
    for (const [face, rating, label] of [["👍", "feedback_up", "This answer is right"], ["👎", "feedback_down", "This answer is wrong"]]) {
      const b = el("button", "feedback", face);
      b.type = "button";
      b.setAttribute("aria-label", label);
      b.setAttribute("aria-pressed", "false");
      const value = rating + ":" + queryId;
      b.addEventListener("click", () => ctx.onAction?.({ action: "feedback", value, button: b }));
      n.append(b);
    }
    return n;
  }

  /**
   * render draws a reply into a fragment. ctx.onAction({action, value, button}) runs a button,
   * ctx.onAsk(question) asks a question in the thread.
   */
  function render(r, ctx = {}) {
    const frag = document.createDocumentFragment();
    if (!r) return frag;
    const spans = Array.isArray(r.text) ? r.text : [];
    // Show SQL's text is the heading its query box draws ("SQL for: …"): said once.
    const heading = r.query ? queryHeading(r) : null;
    if (r.kind === "error") {
      frag.append(text([{ text: "⚠️ " }, ...spans], "error-text"));
    } else if (spans.length && spans.map((s) => s.text ?? "").join("").trim() !== heading) {
      frag.append(text(spans));
    }
    if (r.query) frag.append(query(r));
    // A chart and its table side by side when both fit (a narrow table beside the chart on a wide
    // screen), one under the other otherwise.
    const data = r.chart && r.table ? el("div", "answer-data") : frag;
    if (r.chart) data.append(Chart.draw(r.chart));
    if (r.table) data.append(table(r.table, r.question));
    if (data !== frag) frag.append(data);
    for (const note of r.notes || []) frag.append(el("p", "answer-note", note));
    const small = context(r);
    if (small) frag.append(small);
    if (r.actions?.length) {
      const row = el("div", "answer-actions");
      row.setAttribute("role", "group");
      row.setAttribute("aria-label", "Actions");
      // A button carries its own value (a schedule's id) or the reply's query id.
      for (const a of r.actions) row.append(button(a.label, a.action, a.value || r.query_id, ctx));
      frag.append(row);
    }
    if (r.choices?.length) frag.append(chipRow("", r.choices, ctx));
    if (r.questions?.length) frag.append(asks(r.kind === "error" ? "You could try:" : "Try asking:", r.questions, ctx));
    if (r.follow_ups?.length) frag.append(asks("You could ask next:", r.follow_ups, ctx));
    if (r.feedback && r.query_id) frag.append(feedback(r.query_id, ctx));
    return frag;
  }

  global.Answer = { render };
})(window);
