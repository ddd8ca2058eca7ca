// Block Kit to DOM: the blocks the bot sends to Slack, drawn the way Slack draws them (section,
// table, context, actions, context_actions, header, divider, image, rich_text). Every text goes through
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
    context,
    actions,
    context_actions: contextActions,
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
