// Charts as inline SVG, laid out for the width they get: the SVG is drawn at its box's width in CSS
// pixels (never scaled), so labels keep their size from a 375 px phone to a wide screen, and drawn
// again when that width changes. Bars turn sideways when their labels would not fit under them; a
// line shows every point, labelling as many as fit, and marks a period the data covers only in part.
"use strict";

(function (global) {
  const SVG = "http://www.w3.org/2000/svg";
  const FONT = 12; // px: axis and value labels (the CSS gives the same size)
  const ROW = 26; // px: one category of sideways bars

  function svgEl(tag, attrs, content) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (content !== undefined) n.textContent = content;
    return n;
  }

  function el(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = String(text);
    return n;
  }

  /** formatNumber writes a value with thousands separators, at most two decimals; one below
   * 0.01 to its first two significant digits (0.0042), which two decimals would show as 0. */
  function formatNumber(v) {
    const n = Number(v);
    if (n !== 0 && Math.abs(n) < 0.01) return n.toLocaleString("en-US", { maximumSignificantDigits: 2 });
    return (n === 0 ? 0 : n).toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  /** short writes an axis tick compactly: 2,500 · 25K · 1.5M. */
  function short(v) {
    const a = Math.abs(v);
    if (a >= 1e9) return formatNumber(v / 1e9) + "B";
    if (a >= 1e6) return formatNumber(v / 1e6) + "M";
    if (a >= 1e5) return formatNumber(v / 1e3) + "K";
    return formatNumber(v);
  }

  let measurer = null;
  /** textWidth is the width of s at the charts' label size, in CSS pixels. */
  function textWidth(s) {
    measurer ??= document.createElement("canvas").getContext("2d");
    measurer.font = `${FONT}px ` + getComputedStyle(document.body).fontFamily;
    return measurer.measureText(String(s)).width;
  }

  /** fitText cuts s to at most px wide, marking the cut with "…". */
  function fitText(s, px) {
    s = String(s);
    if (textWidth(s) <= px) return s;
    let lo = 0, hi = s.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (textWidth(s.slice(0, mid) + "…") <= px) lo = mid; else hi = mid - 1;
    }
    return s.slice(0, lo).trimEnd() + "…";
  }

  /** label is an SVG text; when cut, its whole text is its tooltip. */
  function label(text, full, attrs) {
    const t = svgEl("text", attrs, text);
    if (text !== full) t.append(svgEl("title", {}, full));
    return t;
  }

  /** ticks are four or five round values (1, 2, 2.5 or 5 times a power of ten) spanning lo..hi. */
  function ticks(values) {
    const rawLo = Math.min(0, ...values), rawHi = Math.max(0, ...values) || 1;
    const raw = (rawHi - rawLo) / 4 || 1, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw);
    const lo = Math.floor(rawLo / step) * step, hi = Math.ceil(rawHi / step) * step;
    const out = [];
    // Summing steps leaves float noise where zero is (-2.8e-17): it is 0.
    for (let v = lo; v <= hi + step / 2; v += step) out.push(Math.abs(v) < step / 1e6 ? 0 : Number(v.toPrecision(12)));
    return { lo, hi, list: out };
  }

  /** sideways draws bars as rows, the label left of each bar and its value at its end. */
  function sideways(c, W, cats, series) {
    const per = series.length > 1 ? 12 * series.length + 8 : ROW;
    const H = cats.length * per + 8;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
    const all = series.flatMap((s) => s.values);
    const widest = Math.max(...all.map((v) => textWidth(formatNumber(v))));
    const labelW = Math.min(Math.max(...cats.map(textWidth)) + 8, Math.round(W * 0.42));
    const left = labelW, right = widest + 10;
    const lo = Math.min(0, ...all), hi = Math.max(0, ...all) || 1;
    const x = (v) => left + ((v - lo) / (hi - lo)) * (W - left - right);
    cats.forEach((cat, i) => {
      const top = 4 + i * per;
      svg.append(label(fitText(cat, labelW - 8), cat, { x: labelW - 8, y: top + per / 2 + 4, "text-anchor": "end", class: "chart-axis chart-cat" }));
      series.forEach((s, si) => {
        const v = s.values[i];
        const h = series.length > 1 ? 10 : per - 8;
        const y = top + (series.length > 1 ? 4 + si * 12 : 4);
        svg.append(svgEl("rect", { x: Math.min(x(v), x(0)), y, width: Math.max(Math.abs(x(v) - x(0)), 1), height: h, rx: 2, class: "series-" + (si % 6) }));
        svg.append(svgEl("text", { x: Math.max(x(v), x(0)) + 4, y: y + h / 2 + 4, class: "chart-value" }, formatNumber(v)));
      });
    });
    svg.append(svgEl("line", { x1: x(0), x2: x(0), y1: 0, y2: H, class: "chart-zero" }));
    return svg;
  }

  /** upright draws vertical bars, a line or an area over the categories, with a value axis. */
  function upright(c, W, cats, series, partial) {
    const narrow = W < 480;
    const all = series.flatMap((s) => s.values);
    const t = ticks(all);
    const left = Math.ceil(Math.max(...t.list.map((v) => textWidth(short(v))))) + 10;
    const right = 12, top = 10, bottom = 26;
    const H = narrow ? 220 : 280;
    const pw = W - left - right, ph = H - top - bottom;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
    const y = (v) => top + ph - ((v - t.lo) / (t.hi - t.lo)) * ph;
    const step = pw / Math.max(cats.length, 1);
    const cx = (i) => left + step * i + step / 2;
    const pi = partial ? cats.indexOf(partial) : -1;
    if (pi >= 0) {
      // The period the data covers only in part: a shaded band behind it.
      svg.append(svgEl("rect", { x: cx(pi) - step / 2, y: top, width: step, height: ph, class: "chart-partial" }));
    }
    for (const v of t.list) {
      svg.append(svgEl("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), class: v === 0 ? "chart-zero" : "chart-grid" }));
      svg.append(svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", class: "chart-axis" }, short(v)));
    }
    // As many category labels as fit side by side, always the last (the latest period).
    const widest = Math.max(...cats.map(textWidth)) + 8;
    const every = Math.max(1, Math.ceil(widest / step));
    cats.forEach((cat, i) => {
      if ((cats.length - 1 - i) % every !== 0) return;
      const room = step * every - 4;
      svg.append(label(fitText(cat, room), cat, { x: cx(i), y: H - 8, "text-anchor": "middle", class: "chart-axis chart-cat" }));
    });
    series.forEach((s, si) => {
      const cls = "series-" + (si % 6);
      if (c.type === "line" || c.type === "area") {
        const whole = pi === cats.length - 1 ? cats.length - 1 : cats.length;
        const from = pi === 0 ? 1 : 0;
        const pts = s.values.map((v, i) => [cx(i), y(v)]);
        if (c.type === "area") {
          const ring = [[cx(0), y(Math.max(t.lo, 0))], ...pts, [cx(cats.length - 1), y(Math.max(t.lo, 0))]];
          svg.append(svgEl("polygon", { points: ring.map((p) => p.join(",")).join(" "), class: cls + " chart-area" }));
        }
        svg.append(svgEl("polyline", { points: pts.slice(from, whole).map((p) => p.join(",")).join(" "), class: cls + " chart-line" }));
        if (pi >= 0) {
          const [a, b] = pi === 0 ? [pts[0], pts[1]] : [pts[pi - 1], pts[pi]];
          if (a && b) svg.append(svgEl("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: cls + " chart-line chart-line-partial" }));
        }
        const r = step >= 14 ? 3 : 2;
        pts.forEach(([px, py], i) => svg.append(svgEl("circle", { cx: px, cy: py, r: i === pi ? r + 1 : r, class: cls + (i === pi ? " chart-point-partial" : "") })));
      } else {
        // Bars no wider than 56 px, however wide the chart: a group centred on its category.
        const bw = Math.min((step * 0.7) / series.length, 56);
        s.values.forEach((v, i) => {
          const bx = cx(i) - (bw * series.length) / 2 + bw * si;
          svg.append(svgEl("rect", { x: bx, y: Math.min(y(v), y(0)), width: Math.max(bw - 1, 1), height: Math.max(Math.abs(y(v) - y(0)), 1), rx: 2, class: cls }));
          // Each bar's value over it when it fits.
          if (series.length === 1 && textWidth(formatNumber(v)) <= step - 2) {
            svg.append(svgEl("text", { x: cx(i), y: Math.min(y(v), y(0)) - 4, "text-anchor": "middle", class: "chart-value" }, formatNumber(v)));
          }
        });
      }
    });
    return svg;
  }

  /** pie draws the segments; the legend beside or under it says what each is. */
  function pie(cats, values) {
    const D = 200, r = 96, cx = D / 2, cy = D / 2;
    const svg = svgEl("svg", { viewBox: `0 0 ${D} ${D}`, width: D, height: D });
    const total = values.reduce((a, v) => a + Math.max(v, 0), 0) || 1;
    let angle = -Math.PI / 2;
    values.forEach((v, i) => {
      if (!(v > 0)) return;
      const frac = v / total;
      const end = angle + frac * 2 * Math.PI;
      const d = frac >= 0.9999
        ? `M ${cx - r} ${cy} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0`
        : `M ${cx} ${cy} L ${cx + r * Math.cos(angle)} ${cy + r * Math.sin(angle)} A ${r} ${r} 0 ${frac > 0.5 ? 1 : 0} 1 ${cx + r * Math.cos(end)} ${cy + r * Math.sin(end)} Z`;
      svg.append(svgEl("path", { d, class: "series-" + (i % 6) + " chart-slice" }));
      angle = end;
    });
    return svg;
  }

  /**
   * draw returns the figure of chart spec c ({type, title, categories, series, partial}); its SVG
   * follows the figure's width. Its accessible name lists every value.
   */
  function draw(c) {
    const type = ["bar", "line", "area", "pie"].includes(c.type) ? c.type : "bar";
    const fig = el("figure", "answer-chart chart-" + type);
    const title = c.title || "Chart";
    fig.append(el("figcaption", "chart-title", title));
    const cats = (c.categories || []).map(String);
    const series = (c.series || []).map((s) => ({ name: String(s.name ?? ""), values: cats.map((_, i) => Number(s.values?.[i] ?? 0)) }));
    const partial = (type === "line" || type === "area") && cats.includes(String(c.partial ?? "")) ? String(c.partial) : "";
    const summary = [];
    const plot = fig.appendChild(el("div", "chart-plot"));
    const name = (svg) => {
      svg.classList.add("chart-svg");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", `${title}: ${summary.join("; ")}`);
      svg.prepend(svgEl("title", {}, title));
      return svg;
    };

    if (type === "pie") {
      const values = series[0]?.values || [];
      const total = values.reduce((a, v) => a + Math.max(v, 0), 0) || 1;
      const legend = fig.appendChild(el("ul", "chart-legend chart-legend-pie"));
      cats.forEach((cat, i) => {
        if (!(values[i] > 0)) return;
        const pct = Math.round((values[i] / total) * 100);
        const item = legend.appendChild(el("li", "chart-key"));
        item.append(el("span", "chart-swatch series-" + (i % 6)), el("span", "chart-key-label", cat),
          el("span", "chart-key-value", `${formatNumber(values[i])} (${pct}%)`));
        summary.push(`${cat} ${formatNumber(values[i])} (${pct} %)`);
      });
      plot.append(name(pie(cats, values)));
    } else {
      for (const s of series) {
        summary.push((series.length > 1 ? s.name + ": " : "") + cats.map((cat, i) => `${cat} ${formatNumber(s.values[i])}`).join(", "));
      }
      if (partial) summary.push(`${partial} is partial`);
      let drawn = 0;
      const redraw = (width) => {
        const W = Math.floor(width);
        if (W < 120 || Math.abs(W - drawn) < 2) return;
        drawn = W;
        const widest = Math.max(...cats.map(textWidth));
        const step = (W - 60) / Math.max(cats.length, 1);
        const svg = type === "bar" && widest + 8 > step ? sideways(c, W, cats, series) : upright(c, W, cats, series, partial);
        plot.replaceChildren(name(svg));
      };
      redraw(640); // before the page lays it out; then at the width it gets
      if (typeof ResizeObserver === "function") {
        // Drawn in the next frame: drawing changes the box's height, which must not count as
        // another resize within this one.
        let frame = 0;
        new ResizeObserver((entries) => {
          const width = entries[0].contentRect.width;
          cancelAnimationFrame(frame);
          frame = requestAnimationFrame(() => redraw(width));
        }).observe(plot);
      }
      if (series.length > 1) {
        const legend = fig.appendChild(el("div", "chart-legend"));
        series.forEach((s, si) => {
          const item = legend.appendChild(el("span", "chart-key"));
          item.append(el("span", "chart-swatch series-" + (si % 6)), s.name);
        });
      }
      if (partial) {
        fig.append(el("p", "chart-note", `${partial} is shaded: the data covers only part of it.`));
      }
    }
    return fig;
  }

  global.Chart = { draw, formatNumber, ticks };
})(window);
