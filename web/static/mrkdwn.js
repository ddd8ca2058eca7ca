// Slack mrkdwn to DOM nodes. The bot's texts arrive Slack-escaped (&amp; &lt; &gt;) and may hold
// text the model or the database wrote, so nothing here ever parses HTML: every piece of text
// becomes a text node, and the only markup is elements this file creates itself.
"use strict";

(function (global) {
  const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">" };

  /** unescape reverses Slack's three escapes; anything else stays as written. */
  function unescape(s) {
    return String(s).replace(/&(amp|lt|gt);/g, (m) => ENTITIES[m]);
  }

  // A few emoji the bot uses (":warning: …"); unknown shortcodes stay as text.
  const EMOJI = {
    warning: "⚠️", white_check_mark: "✅", x: "❌", information_source: "ℹ️",
    bar_chart: "📊", chart_with_upwards_trend: "📈", mag: "🔍", bulb: "💡",
    hourglass_flowing_sand: "⏳", thinking_face: "🤔", tada: "🎉", page_facing_up: "📄",
  };

  function emoji(s) {
    return s.replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] || m);
  }

  function el(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /**
   * safeURL returns url when it is http(s) or mailto (or, with relative, a path on this server);
   * otherwise "", so javascript: and data: links never reach an href.
   */
  function safeURL(url, relative) {
    const u = String(url).trim();
    if (/^(https?:|mailto:)/i.test(u)) return u;
    if (relative && /^\/(?![\/\\])/.test(u)) return u;
    return "";
  }

  // Slack's inline markers only count at word edges: snake_case and 2*3*4 stay as written.
  const EDGE_L = "(?<![\\p{L}\\p{N}_*~`])";
  const EDGE_R = "(?![\\p{L}\\p{N}_*~`])";
  const INLINE = new RegExp(
    "`([^`\\n]+)`" + // 1 inline code
      "|<([^<>\\n]+)>" + // 2 link or mention
      "|" + EDGE_L + "\\*(?!\\s)([^*\\n]+?)(?<!\\s)\\*" + EDGE_R + // 3 bold
      "|" + EDGE_L + "_(?!\\s)([^_\\n]+?)(?<!\\s)_" + EDGE_R + // 4 italic
      "|" + EDGE_L + "~(?!\\s)([^~\\n]+?)(?<!\\s)~" + EDGE_R, // 5 strike
    "gu",
  );

  /** appendInline adds the inline-formatted text s (still escaped) to parent. */
  function appendInline(parent, s) {
    let last = 0;
    INLINE.lastIndex = 0;
    const matches = [...s.matchAll(INLINE)];
    for (const m of matches) {
      if (m.index > last) parent.append(emoji(unescape(s.slice(last, m.index))));
      if (m[1] !== undefined) {
        parent.append(el("code", "", unescape(m[1])));
      } else if (m[2] !== undefined) {
        parent.append(link(m[2]));
      } else {
        const tag = m[3] !== undefined ? "strong" : m[4] !== undefined ? "em" : "s";
        const inner = el(tag);
        appendInline(inner, m[3] ?? m[4] ?? m[5]);
        parent.append(inner);
      }
      last = m.index + m[0].length;
    }
    if (last < s.length) parent.append(emoji(unescape(s.slice(last))));
  }

  /** link renders <url|label>, <url>, <@user>, <#channel|name> and <!here>. */
  function link(body) {
    const bar = body.indexOf("|");
    const target = bar >= 0 ? body.slice(0, bar) : body;
    const label = bar >= 0 ? body.slice(bar + 1) : "";
    if (target.startsWith("@")) return el("span", "mention", "@" + unescape(label || target.slice(1)));
    if (target.startsWith("#")) return el("span", "mention", "#" + unescape(label || target.slice(1)));
    if (target.startsWith("!")) return el("span", "mention", "@" + unescape(label || target.slice(1).split("^")[0]));
    const href = safeURL(unescape(target));
    const text = unescape(label || target);
    if (!href) return document.createTextNode(text);
    const a = el("a", "", text);
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    return a;
  }

  const BULLET = /^\s*(?:[•◦▪*-])\s+(.*)$/;
  const NUMBERED = /^\s*(\d{1,3})[.)]\s+(.*)$/;
  const QUOTE = /^&gt;\s?(.*)$/;

  /** appendLines renders text outside code fences: paragraphs, lists and quotes. */
  function appendLines(parent, text) {
    const lines = text.split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (BULLET.test(line) || NUMBERED.test(line)) {
        const ordered = !BULLET.test(line);
        const re = ordered ? NUMBERED : BULLET;
        const list = el(ordered ? "ol" : "ul");
        if (ordered) list.start = Number(line.match(NUMBERED)[1]);
        for (; i < lines.length && re.test(lines[i]); i++) {
          const li = el("li");
          appendInline(li, lines[i].match(re)[ordered ? 2 : 1]);
          list.append(li);
        }
        parent.append(list);
        continue;
      }
      if (QUOTE.test(line)) {
        const q = el("blockquote");
        const body = [];
        for (; i < lines.length && QUOTE.test(lines[i]); i++) body.push(lines[i].match(QUOTE)[1]);
        appendInline(q, body.join("\n"));
        parent.append(q);
        continue;
      }
      const para = [];
      for (; i < lines.length; i++) {
        const l = lines[i];
        if (para.length && (BULLET.test(l) || NUMBERED.test(l) || QUOTE.test(l))) break;
        para.push(l);
      }
      const text = para.join("\n").replace(/^\n+|\n+$/g, "");
      if (text) {
        const p = el("p");
        appendInline(p, text);
        parent.append(p);
      }
    }
  }

  /** render returns a fragment showing the Slack mrkdwn text s. */
  function render(s) {
    const frag = document.createDocumentFragment();
    const parts = String(s ?? "").split(/```/);
    // Odd-numbered parts sit between fences; a fence never closed shows as written.
    parts.forEach((part, idx) => {
      if (idx % 2 === 1 && idx < parts.length - 1) {
        const pre = el("pre");
        pre.tabIndex = 0; // a wide code block scrolls; the keyboard must reach it
        pre.append(el("code", "", unescape(part.replace(/^\n/, "").replace(/\n$/, ""))));
        frag.append(pre);
      } else if (idx % 2 === 1) {
        appendLines(frag, "```" + part);
      } else {
        appendLines(frag, part);
      }
    });
    return frag;
  }

  global.Mrkdwn = { render, unescape, safeURL, emoji };
})(window);
