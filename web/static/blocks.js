// Block Kit to DOM: the blocks the bot sends to Slack, drawn the way Slack draws them (section,
// table, context, actions, context_actions, data_visualization (as inline SVG), header, divider,
// image, rich_text). Every text goes through
// textContent or Mrkdwn.render, never innerHTML, because answers quote the model and the data.
"use strict";

(function (global) {
  const { render: mrkdwn, safeURL, emoji } = global.Mrkdwn;

  function el(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /** textObject renders a composition text object: mrkdwn (escaped, formatted) or plain_text. */
  function textObject(obj, tag) {
    const n = el(tag || "div", "bk-text");
    if (!obj) return n;
    if (obj.type === "mrkdwn") n.append(mrkdwn(obj.text));
    else n.textContent = obj.emoji === false ? String(obj.text ?? "") : emoji(String(obj.text ?? ""));
    return n;
  }

  /** image shows an image block's picture: http(s), a path on this server, or an inline PNG/JPEG/GIF/WebP. */
  function image(src, alt, className) {
    const raw = String(src || "");
    const url = /^data:image\/(png|jpeg|gif|webp);base64,/i.test(raw) ? raw : safeURL(raw, true);
    const img = el("img", className);
    img.alt = String(alt ?? "");
    if (url) img.src = url;
    img.loading = "lazy";
    return img;
  }

  /** button renders an actions button; a link button opens its URL, the others call onAction. */
  function button(elem, ctx) {
    const label = String(elem.text?.text ?? elem.action_id ?? "Button");
    const style = elem.style === "primary" || elem.style === "danger" ? " " + elem.style : "";
    const url = elem.url ? safeURL(elem.url) : "";
    if (url) {
      const a = el("a", "bk-button" + style, label);
      a.href = url;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      return a;
    }
    const b = el("button", "bk-button" + style, label);
    b.type = "button";
    b.dataset.actionId = String(elem.action_id ?? "");
    b.dataset.value = String(elem.value ?? "");
    b.addEventListener("click", () => ctx.onAction?.({ action: b.dataset.actionId, value: b.dataset.value, button: b }));
    return b;
  }

  function section(block, ctx) {
    const n = el("div", "bk-section");
    if (block.text) n.append(textObject(block.text));
    if (Array.isArray(block.fields) && block.fields.length) {
      const grid = el("div", "bk-fields");
      for (const f of block.fields) grid.append(textObject(f));
      n.append(grid);
    }
    const acc = block.accessory;
    if (acc?.type === "button") n.appendChild(el("div", "bk-accessory")).append(button(acc, ctx));
    else if (acc?.type === "image") n.append(image(acc.image_url, acc.alt_text, "bk-accessory-image"));
    return n;
  }

  /** richElements renders the inline elements of a rich_text_section into parent. */
  function richElements(parent, elements) {
    for (const e of elements || []) {
      let node;
      switch (e.type) {
        case "text":
          node = document.createTextNode(String(e.text ?? ""));
          break;
        case "link": {
          const href = safeURL(e.url || "");
          node = href ? el("a", "", String(e.text || e.url)) : document.createTextNode(String(e.text || e.url || ""));
          if (href) Object.assign(node, { href, target: "_blank", rel: "noopener noreferrer" });
          break;
        }
        case "emoji":
          node = document.createTextNode(
            e.unicode ? String.fromCodePoint(...e.unicode.split("-").map((h) => parseInt(h, 16))) : emoji(`:${e.name}:`));
          break;
        case "user":
          node = el("span", "mention", "@" + String(e.user_id ?? ""));
          break;
        case "channel":
          node = el("span", "mention", "#" + String(e.channel_id ?? ""));
          break;
        case "broadcast":
          node = el("span", "mention", "@" + String(e.range ?? ""));
          break;
        default:
          node = document.createTextNode(String(e.text ?? e.fallback ?? ""));
      }
      const s = e.style || {};
      for (const [key, tag] of [["code", "code"], ["strike", "s"], ["italic", "em"], ["bold", "strong"]]) {
        if (s[key]) {
          const w = el(tag);
          w.append(node);
          node = w;
        }
      }
      parent.append(node);
    }
  }

  /** richText renders a rich_text block or cell: sections, lists, preformatted text, quotes. */
  function richText(elements, tag) {
    const n = el(tag || "div", "bk-rich");
    for (const part of elements || []) {
      switch (part.type) {
        case "rich_text_list": {
          const list = el(part.style === "ordered" ? "ol" : "ul");
          for (const item of part.elements || []) {
            const li = el("li");
            richElements(li, item.elements);
            list.append(li);
          }
          n.append(list);
          break;
        }
        case "rich_text_preformatted": {
          const pre = el("pre");
          pre.tabIndex = 0;
          richElements(pre.appendChild(el("code")), part.elements);
          n.append(pre);
          break;
        }
        case "rich_text_quote":
          richElements(n.appendChild(el("blockquote")), part.elements);
          break;
        default:
          richElements(n.appendChild(el("span")), part.elements);
      }
    }
    return n;
  }

  function tableCell(cell, tag, setting) {
    const td = el(tag);
    if (cell?.type === "rich_text") td.append(richText(cell.elements, "span"));
    else td.textContent = String(cell?.text ?? cell?.value ?? "");
    const align = setting?.align;
    if (align === "right" || align === "center" || align === "left") td.style.textAlign = align;
    if (setting?.is_wrapped) td.classList.add("wrap");
    return td;
  }

  /** table renders Slack's table block: the first row is the header, as the bot builds it. */
  function table(block) {
    const rows = Array.isArray(block.rows) ? block.rows : [];
    const settings = block.column_settings || [];
    const wrap = el("div", "bk-table-wrap");
    // The wrapper scrolls a wide table sideways; as a labelled region the keyboard can scroll it too.
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", "Result table");
    const t = wrap.appendChild(el("table"));
    if (rows.length) {
      const tr = t.appendChild(el("thead")).appendChild(el("tr"));
      rows[0].forEach((c, i) => {
        const th = tableCell(c, "th", settings[i]);
        th.scope = "col";
        tr.append(th);
      });
    }
    const body = t.appendChild(el("tbody"));
    for (const row of rows.slice(1)) {
      const tr = body.appendChild(el("tr"));
      row.forEach((c, i) => tr.append(tableCell(c, "td", settings[i])));
    }
    return wrap;
  }

  /**
   * dataTable renders Slack's data_table block as Slack does: a caption, headers that sort the rows
   * (raw_number cells by their value), and pages of page_size rows (5 when not given).
   */
  function dataTable(block) {
    const rows = Array.isArray(block.rows) ? block.rows : [];
    const header = rows[0] || [];
    const data = rows.slice(1);
    const size = Math.min(Math.max(Math.trunc(Number(block.page_size)) || 5, 1), 100);
    const numeric = header.map((_, i) => data.some((r) => r[i]?.type === "raw_number"));
    const wrap = el("div", "bk-table-wrap");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", String(block.caption || "Result table"));
    const t = wrap.appendChild(el("table", "bk-table"));
    // The caption is shown above the table (a table's own caption would wrap to its width).
    if (block.caption) t.append(el("caption", "visually-hidden", String(block.caption)));
    const headRow = t.appendChild(el("thead")).appendChild(el("tr"));
    const body = t.appendChild(el("tbody"));
    const pager = el("div", "bk-pager");
    const prev = pager.appendChild(el("button", "bk-button", "Previous"));
    const where = pager.appendChild(el("span", "bk-pager-where"));
    const next = pager.appendChild(el("button", "bk-button", "Next"));
    prev.type = next.type = "button";
    let order = data.slice();
    let page = 0;
    const pages = () => Math.max(1, Math.ceil(order.length / size));
    const key = (row, i) => (row[i]?.type === "raw_number" ? Number(row[i].value) : String(row[i]?.text ?? ""));
    function draw() {
      body.replaceChildren();
      for (const row of order.slice(page * size, (page + 1) * size)) {
        const tr = body.appendChild(el("tr"));
        row.forEach((c, i) => tr.append(tableCell(c, "td", numeric[i] ? { align: "right" } : undefined)));
      }
      const first = order.length ? page * size + 1 : 0;
      where.textContent = first + "–" + Math.min(order.length, (page + 1) * size) + " of " + order.length;
      prev.disabled = page === 0;
      next.disabled = page >= pages() - 1;
    }
    header.forEach((c, i) => {
      const th = headRow.appendChild(el("th"));
      th.scope = "col";
      if (numeric[i]) th.style.textAlign = "right";
      const sort = th.appendChild(el("button", "bk-sort", String(c?.text ?? "")));
      sort.type = "button";
      sort.addEventListener("click", () => {
        const down = th.getAttribute("aria-sort") === "ascending";
        headRow.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        order = data.slice().sort((a, b) => {
          const x = key(a, i), y = key(b, i);
          const cmp = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return down ? -cmp : cmp;
        });
        page = 0;
        draw();
      });
    });
    prev.addEventListener("click", () => { page = Math.max(0, page - 1); draw(); });
    next.addEventListener("click", () => { page = Math.min(pages() - 1, page + 1); draw(); });
    draw();
    const n = el("div", "bk-data-table-box");
    if (block.caption) {
      const cap = n.appendChild(el("p", "bk-caption", String(block.caption)));
      cap.setAttribute("aria-hidden", "true");
    }
    n.append(wrap);
    if (data.length > size) n.append(pager);
    return n;
  }

  function context(block) {
    const n = el("div", "bk-context");
    for (const e of block.elements || []) {
      if (e.type === "image") n.append(image(e.image_url, e.alt_text, "bk-context-image"));
      else n.append(textObject(e, "span"));
    }
    return n;
  }

  function actions(block, ctx) {
    const n = el("div", "bk-actions");
    n.setAttribute("role", "group");
    n.setAttribute("aria-label", "Actions");
    for (const e of block.elements || []) {
      if (e.type === "button") n.append(button(e, ctx));
    }
    return n;
  }

  /**
   * contextActions renders a context_actions block: feedback buttons (👍/👎) as two toggle buttons
   * whose presses carry the element's action id and the pressed button's value.
   */
  function contextActions(block, ctx) {
    const n = el("div", "bk-context-actions");
    n.setAttribute("role", "group");
    n.setAttribute("aria-label", "Rate this answer");
    for (const e of block.elements || []) {
      if (e.type !== "feedback_buttons") continue;
      for (const side of [e.positive_button, e.negative_button]) {
        if (!side) continue;
        const b = el("button", "bk-feedback", emoji(String(side.text?.text ?? "")));
        b.type = "button";
        b.dataset.actionId = String(e.action_id ?? "");
        b.dataset.value = String(side.value ?? "");
        if (side.accessibility_label) b.setAttribute("aria-label", String(side.accessibility_label));
        b.setAttribute("aria-pressed", "false");
        b.addEventListener("click", () => ctx.onAction?.({ action: b.dataset.actionId, value: b.dataset.value, button: b }));
        n.append(b);
      }
    }
    return n;
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /** formatNumber writes a chart value with thousands separators, at most two decimals. */
  function formatNumber(v) {
    return Number(v).toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  /**
   * dataVisualization draws a data_visualization block (bar, line, area or pie) as inline SVG,
   * with nothing loaded from elsewhere; its accessible name lists the values.
   */
  function dataVisualization(block) {
    const chart = block.chart || {};
    const fig = el("figure", "bk-chart");
    fig.append(el("figcaption", "bk-chart-title", String(block.title ?? "")));
    const W = 640, H = 280;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "bk-chart-svg" });
    const summary = [];
    if (chart.type === "pie") {
      const segs = (chart.segments || []).filter((s) => Number(s.value) > 0);
      const total = segs.reduce((a, s) => a + Number(s.value), 0) || 1;
      const cx = 140, cy = H / 2, r = 110;
      let angle = -Math.PI / 2;
      segs.forEach((s, i) => {
        const frac = Number(s.value) / total;
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
        svg.append(svgEl("text", { x: 312, y: ly, class: "bk-chart-label" }, `${s.label} — ${formatNumber(s.value)} (${pct} %)`));
        summary.push(`${s.label} ${formatNumber(s.value)} (${pct} %)`);
        angle = end;
      });
    } else {
      const cats = (chart.axis_config?.categories || []).map(String);
      const series = chart.series || [];
      const value = (ser, c) => Number((ser.data || []).find((p) => String(p.label) === c)?.value ?? 0);
      const all = series.flatMap((ser) => cats.map((c) => value(ser, c)));
      // Round ticks: a step of 1, 2, 2.5 or 5 times a power of ten, four or five of them.
      const rawLo = Math.min(0, ...all), rawHi = Math.max(0, ...all) || 1;
      const raw = (rawHi - rawLo) / 4, mag = 10 ** Math.floor(Math.log10(raw));
      const tick = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw);
      const lo = Math.floor(rawLo / tick) * tick, hi = Math.ceil(rawHi / tick) * tick;
      const left = 64, right = 12, top = 12, bottom = cats.length > 8 ? 78 : 40;
      const pw = W - left - right, ph = H - top - bottom;
      const y = (v) => top + ph - ((v - lo) / (hi - lo)) * ph;
      for (let v = lo; v <= hi + tick / 2; v += tick) {
        svg.append(svgEl("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), class: "bk-chart-grid" }));
        svg.append(svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", class: "bk-chart-axis" }, formatNumber(v)));
      }
      const step = pw / Math.max(cats.length, 1);
      const cx = (i) => left + step * i + step / 2;
      cats.forEach((c, i) => {
        const t = svgEl("text", { x: cx(i), y: top + ph + 16, "text-anchor": cats.length > 8 ? "end" : "middle", class: "bk-chart-axis" }, c);
        if (cats.length > 8) t.setAttribute("transform", `rotate(-40 ${cx(i)} ${top + ph + 16})`);
        svg.append(t);
      });
      series.forEach((ser, si) => {
        const cls = "series-" + (si % 6);
        if (chart.type === "bar") {
          const bw = (step * 0.8) / series.length;
          cats.forEach((c, i) => {
            const v = value(ser, c);
            const x = cx(i) - step * 0.4 + bw * si;
            svg.append(svgEl("rect", { x, y: Math.min(y(v), y(0)), width: Math.max(bw - 1, 1), height: Math.abs(y(v) - y(0)), class: cls }));
          });
        } else {
          const pts = cats.map((c, i) => `${cx(i)},${y(value(ser, c))}`);
          if (chart.type === "area") {
            svg.append(svgEl("polygon", { points: `${cx(0)},${y(0)} ${pts.join(" ")} ${cx(cats.length - 1)},${y(0)}`, class: cls + " bk-chart-area" }));
          }
          svg.append(svgEl("polyline", { points: pts.join(" "), class: cls + " bk-chart-line" }));
          cats.forEach((c, i) => svg.append(svgEl("circle", { cx: cx(i), cy: y(value(ser, c)), r: 3, class: cls })));
        }
        summary.push((series.length > 1 ? ser.name + ": " : "") + cats.map((c) => `${c} ${formatNumber(value(ser, c))}`).join(", "));
      });
      if (series.length > 1) {
        const legend = el("div", "bk-chart-legend");
        series.forEach((ser, si) => {
          const item = legend.appendChild(el("span", "bk-chart-key"));
          item.append(el("span", "bk-chart-swatch series-" + (si % 6)), String(ser.name ?? ""));
        });
        fig.append(legend);
      }
    }
    svg.setAttribute("aria-label", `${block.title ?? "Chart"}: ${summary.join("; ")}`);
    svg.prepend(svgEl("title", {}, String(block.title ?? "Chart")));
    fig.insertBefore(svg, fig.querySelector(".bk-chart-legend"));
    return fig;
  }

  function imageBlock(block) {
    const fig = el("figure", "bk-image");
    fig.append(image(block.image_url, block.alt_text));
    const title = block.title?.text;
    if (title) fig.append(el("figcaption", "", String(title)));
    return fig;
  }

  const RENDERERS = {
    section,
    table,
    data_table: dataTable,
    context,
    actions,
    context_actions: contextActions,
    data_visualization: dataVisualization,
    header: (b) => textObject({ ...b.text, type: "plain_text" }, "h3"),
    divider: () => el("hr", "bk-divider"),
    image: imageBlock,
    rich_text: (b) => richText(b.elements),
  };

  /**
   * render draws blocks into a fragment. ctx.onAction({action, value, button}) is called when a
   * button is pressed. Unknown block types are skipped, as Slack's older clients do.
   */
  function render(blocks, ctx = {}) {
    const frag = document.createDocumentFragment();
    for (const b of Array.isArray(blocks) ? blocks : []) {
      const f = RENDERERS[b?.type];
      if (!f) continue;
      const node = f(b, ctx);
      // bk-<type> marks the block's outermost element (for a table, its scrolling wrapper).
      node.classList.add("bk-block", "bk-" + b.type);
      node.dataset.blockType = b.type;
      if (b.block_id) node.dataset.blockId = String(b.block_id);
      frag.append(node);
    }
    return frag;
  }

  global.BlockKit = { render };
})(window);
