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
      const sort = th.appendChild(el("button", "sort", col.name));
      sort.type = "button";
      sort.title = "Sort by " + col.name;
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

  const SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, content) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (content !== undefined) n.textContent = content;
    return n;
  }

  /** formatNumber writes a chart value with thousands separators, at most two decimals. */
  function formatNumber(v) {
    return Number(v).toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  /**
   * chart draws the chart spec (bar, line, area or pie) as inline SVG, with nothing loaded from
   * elsewhere; its accessible name lists the values.
   */
  function chart(c) {
    const fig = el("figure", "answer-chart");
    fig.append(el("figcaption", "chart-title", c.title || "Chart"));
    const W = 640, H = 280;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart-svg" });
    const cats = (c.categories || []).map(String);
    const series = c.series || [];
    const value = (ser, i) => Number(ser.values?.[i] ?? 0);
    const summary = [];
    if (c.type === "pie") {
      const ser = series[0] || { values: [] };
      const segs = cats.map((label, i) => ({ label, value: value(ser, i) })).filter((s) => s.value > 0);
      const total = segs.reduce((a, s) => a + s.value, 0) || 1;
      const cx = 140, cy = H / 2, r = 110;
      let angle = -Math.PI / 2;
      segs.forEach((s, i) => {
        const frac = s.value / total;
        const end = angle + frac * 2 * Math.PI;
        const large = frac > 0.5 ? 1 : 0;
        const [x1, y1, x2, y2] = [cx + r * Math.cos(angle), cy + r * Math.sin(angle), cx + r * Math.cos(end), cy + r * Math.sin(end)];
        const d = segs.length === 1
          ? `M ${cx - r} ${cy} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0`
          : `M ${cx} ${cy} L ${x1} ${y1} A ${r} ${r} 0 ${large} 1 ${x2} ${y2} Z`;
        svg.append(svgEl("path", { d, class: "series-" + (i % 6) }));
        const ly = 30 + i * 26;
        svg.append(svgEl("rect", { x: 290, y: ly - 12, width: 14, height: 14, class: "series-" + (i % 6) }));
        const pct = Math.round(frac * 100);
        svg.append(svgEl("text", { x: 312, y: ly, class: "chart-label" }, `${s.label} — ${formatNumber(s.value)} (${pct} %)`));
        summary.push(`${s.label} ${formatNumber(s.value)} (${pct} %)`);
        angle = end;
      });
    } else {
      const all = series.flatMap((ser) => cats.map((_, i) => value(ser, i)));
      // Round ticks: a step of 1, 2, 2.5 or 5 times a power of ten, four or five of them.
      const rawLo = Math.min(0, ...all), rawHi = Math.max(0, ...all) || 1;
      const raw = (rawHi - rawLo) / 4, mag = 10 ** Math.floor(Math.log10(raw));
      const tick = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw);
      const lo = Math.floor(rawLo / tick) * tick, hi = Math.ceil(rawHi / tick) * tick;
      const left = 64, right = 12, top = 12, bottom = cats.length > 8 ? 78 : 40;
      const pw = W - left - right, ph = H - top - bottom;
      const y = (v) => top + ph - ((v - lo) / (hi - lo)) * ph;
      for (let v = lo; v <= hi + tick / 2; v += tick) {
        svg.append(svgEl("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), class: "chart-grid" }));
        svg.append(svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", class: "chart-axis" }, formatNumber(v)));
      }
      const step = pw / Math.max(cats.length, 1);
      const cx = (i) => left + step * i + step / 2;
      cats.forEach((label, i) => {
        const t = svgEl("text", { x: cx(i), y: top + ph + 16, "text-anchor": cats.length > 8 ? "end" : "middle", class: "chart-axis" }, label);
        if (cats.length > 8) t.setAttribute("transform", `rotate(-40 ${cx(i)} ${top + ph + 16})`);
        svg.append(t);
      });
      series.forEach((ser, si) => {
        const cls = "series-" + (si % 6);
        if (c.type === "line" || c.type === "area") {
          const pts = cats.map((_, i) => `${cx(i)},${y(value(ser, i))}`);
          if (c.type === "area") {
            svg.append(svgEl("polygon", { points: `${cx(0)},${y(0)} ${pts.join(" ")} ${cx(cats.length - 1)},${y(0)}`, class: cls + " chart-area" }));
          }
          svg.append(svgEl("polyline", { points: pts.join(" "), class: cls + " chart-line" }));
          cats.forEach((_, i) => svg.append(svgEl("circle", { cx: cx(i), cy: y(value(ser, i)), r: 3, class: cls })));
        } else {
          const bw = (step * 0.8) / series.length;
          cats.forEach((_, i) => {
            const v = value(ser, i);
            const x = cx(i) - step * 0.4 + bw * si;
            svg.append(svgEl("rect", { x, y: Math.min(y(v), y(0)), width: Math.max(bw - 1, 1), height: Math.abs(y(v) - y(0)), class: cls }));
          });
        }
        summary.push((series.length > 1 ? ser.name + ": " : "") + cats.map((label, i) => `${label} ${formatNumber(value(ser, i))}`).join(", "));
      });
      if (series.length > 1) {
        const legend = el("div", "chart-legend");
        series.forEach((ser, si) => {
          const item = legend.appendChild(el("span", "chart-key"));
          item.append(el("span", "chart-swatch series-" + (si % 6)), String(ser.name ?? ""));
        });
        fig.append(legend);
      }
    }
    const title = c.title || "Chart";
    svg.setAttribute("aria-label", `${title}: ${summary.join("; ")}`);
    svg.prepend(svgEl("title", {}, title));
    fig.insertBefore(svg, fig.querySelector(".chart-legend"));
    return fig;
  }

  /** code is a block of code, focusable so the keyboard can scroll it. */
  function code(textContent) {
    const pre = el("pre");
    pre.tabIndex = 0;
    pre.append(el("code", "", textContent));
    return pre;
  }

  function capitalize(s) {
    return s ? s[0].toUpperCase() + s.slice(1) : s;
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
    else box.append(code(q.text));
    if (lang !== "SQL") {
      const by = q.sql_by || "the backend";
      if (q.sql) {
        box.append(el("p", "answer-query-title", "SQL that " + by + " runs for it:"), code(q.sql));
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
    if (r.kind === "error") {
      frag.append(text([{ text: "⚠️ " }, ...spans], "error-text"));
    } else if (spans.length) {
      frag.append(text(spans));
    }
    if (r.query) frag.append(query(r));
    if (r.chart) frag.append(chart(r.chart));
    if (r.table) frag.append(table(r.table, r.question));
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
