// The page's side of the HTTP API: JSON requests with the bearer token, and the chat stream read
// from a POST response body (EventSource can only GET). A 401 asks the page for a token once and
// retries, so a server with HTTP_TOKEN set works without a login page.
"use strict";

(function (global) {
  const TOKEN_KEY = "analyticsbot.token";

  /** ApiError carries the server's {"error": "…"} message and the HTTP status. */
  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.name = "ApiError";
      this.status = status;
    }
  }

  const Api = {
    /** onUnauthorized is set by the page: it resolves to a token, or null when the user gives up. */
    onUnauthorized: async () => null,

    token() {
      return sessionStorage.getItem(TOKEN_KEY) || "";
    },

    setToken(t) {
      if (t) sessionStorage.setItem(TOKEN_KEY, t);
      else sessionStorage.removeItem(TOKEN_KEY);
    },

    /** fetch sends a request with the token and returns the response once it is not a 401. */
    async fetch(path, init = {}) {
      for (;;) {
        const headers = new Headers(init.headers || {});
        const t = Api.token();
        if (t) headers.set("Authorization", "Bearer " + t);
        const res = await global.fetch(path, { ...init, headers });
        if (res.status !== 401) {
          if (!res.ok) throw await errorOf(res);
          return res;
        }
        Api.setToken("");
        const next = await Api.onUnauthorized();
        if (!next) throw new ApiError(401, "This server needs an access token.");
        Api.setToken(next);
      }
    },

    async getJSON(path, init) {
      const res = await Api.fetch(path, init);
      return res.json();
    },

    postJSON(path, body, init = {}) {
      return Api.fetch(path, {
        ...init,
        method: "POST",
        headers: { "Content-Type": "application/json", ...(init.headers || {}) },
        body: JSON.stringify(body),
      });
    },

    /**
     * stream posts a question and calls onEvent for each event of the response until the server
     * ends it, or until onEvent returns true (the answer is complete: what follows is not read).
     * A failed request throws ApiError; aborting signal throws an AbortError.
     */
    async stream(body, onEvent, signal) {
      const res = await Api.postJSON("/api/chat/stream", body, { signal, headers: { Accept: "text/event-stream" } });
      if (!res.body) throw new ApiError(0, "The browser cannot read a streamed answer.");
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value.replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const ev = parseEvent(buf.slice(0, cut));
          buf = buf.slice(cut + 2);
          if (ev && onEvent(ev) === true) {
            reader.cancel().catch(() => {});
            return;
          }
        }
      }
      const ev = parseEvent(buf);
      if (ev) onEvent(ev);
    },
  };

  /** parseEvent reads one server-sent event: its data lines joined, as JSON; null for none. */
  function parseEvent(chunk) {
    const data = chunk
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) return null;
    try {
      return JSON.parse(data);
    } catch {
      return { type: "error", message: "The server sent an event the page could not read." };
    }
  }

  /** errorOf turns an error response into an ApiError with the server's message when it has one. */
  async function errorOf(res) {
    let msg = "";
    try {
      msg = (await res.json()).error || "";
    } catch {
      // not JSON: the status says enough
    }
    if (res.status === 413) msg ||= "The question is too long.";
    return new ApiError(res.status, msg || `The server answered ${res.status} ${res.statusText}.`.trim());
  }

  global.Api = Api;
  global.ApiError = ApiError;
})(window);
