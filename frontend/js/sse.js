// Server-sent events over fetch, so the stream can start after a given round
// (`Last-Event-ID`) and be closed the moment its view goes away.

/** @typedef {{event: string, id: string|null, data: string}} StreamEvent */

/**
 * Split a text/event-stream buffer into complete events and the unfinished rest.
 * @param {string} buffer
 * @returns {{events: StreamEvent[], rest: string}}
 */
export function parseEvents(buffer) {
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  /** @type {StreamEvent[]} */
  const events = [];
  for (const block of blocks) {
    let event = "message";
    /** @type {string|null} */
    let id = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    if (data.length) events.push({ event, id, data: data.join("\n") });
  }
  return { events, rest };
}

/**
 * Follow an event stream, reconnecting after drops from the last id seen, until `close()`.
 * @param {string} url
 * @param {{lastEventId?: string|null, headers?: Record<string, string>, onEvent: (e: StreamEvent) => void,
 *   onError?: (err: unknown) => void}} opts
 * @returns {{close: () => void}}
 */
export function followEvents(url, { lastEventId = null, headers: extra = {}, onEvent, onError }) {
  const controller = new AbortController();
  let lastId = lastEventId;
  let closed = false;

  async function connect() {
    /** @type {Record<string, string>} */
    const headers = { ...extra, Accept: "text/event-stream" };
    if (lastId !== null) headers["Last-Event-ID"] = lastId;
    const response = await fetch(url, { headers, signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`event stream: HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const parsed = parseEvents(buffer + value);
      buffer = parsed.rest;
      for (const e of parsed.events) {
        if (e.id !== null) lastId = e.id;
        onEvent(e);
        if (closed) return;
      }
    }
  }

  (async () => {
    let delay = 500;
    while (!closed) {
      try {
        await connect();
        delay = 500;
      } catch (err) {
        if (closed) return;
        onError?.(err);
        delay = Math.min(delay * 2, 8000);
      }
      if (!closed) await new Promise((resolve) => setTimeout(resolve, delay));
    }
  })();

  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}
