// DOM helpers. Every string from the API goes in as a text node, never as HTML.
import { setToken } from "./api.js";

/**
 * Create an element. `attrs` keys: `class`, `dataset` (object), `on` (event -> handler),
 * properties that exist on the element (value, checked, disabled, ...), else attributes.
 * Children are appended before the attributes are set.
 * Children: nodes, strings (text nodes), null/false (skipped), or arrays of those.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  append(el, children); // first, so that a <select>'s value can pick among its options
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key in el) /** @type {any} */ (el)[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  return el;
}

/** @param {Node} parent @param {any[]} children */
function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `el`. @param {Element} el @param {...any} children */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** @param {string} text */
export function loading(text = "Loading…") {
  return h("div", { class: "state state-loading", role: "status" }, h("span", { class: "spinner" }), text);
}

/** @param {string} title @param {any} [body] */
export function empty(title, body = null) {
  return h("div", { class: "state state-empty" }, h("strong", {}, title), body && h("div", {}, body));
}

/**
 * An error state; when the server asks for a token (401/403), a field to store one.
 * @param {unknown} err @param {(() => void) | null} [retry]
 */
export function errorBox(err, retry = null) {
  const message = err instanceof Error ? err.message : String(err);
  const status = /** @type {any} */ (err)?.status;
  const token = h("input", { type: "password", placeholder: "API token", "aria-label": "API token" });
  const saveToken = () => {
    setToken(/** @type {HTMLInputElement} */ (token).value.trim());
    retry?.();
  };
  return h(
    "div",
    { class: "state state-error", role: "alert" },
    h("strong", {}, "Something went wrong"),
    h("div", { class: "error-message" }, message),
    status === 401 || status === 403
      ? h(
          "div",
          { class: "token-box" },
          token,
          h("button", { type: "button", on: { click: saveToken } }, "Save token and retry"),
        )
      : retry && h("button", { type: "button", on: { click: retry } }, "Retry"),
  );
}

/** Status badge for a run status. @param {string} status */
export function badge(status) {
  return h("span", { class: `badge badge-${status}`, "data-status": status }, status);
}

/** @param {number} fraction in 0..1 @param {string} label */
export function progressBar(fraction, label) {
  const pct = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
  return h(
    "div",
    { class: "progress", role: "progressbar", "aria-valuenow": pct, "aria-valuemin": 0, "aria-valuemax": 100 },
    h("div", { class: "progress-fill", style: `width:${pct}%` }),
    h("span", { class: "progress-label" }, label),
  );
}

/** How long a saved file's object URL lives: the download must have read it by then. */
const OBJECT_URL_MS = 40_000;

/**
 * Hand a fetched file to the browser's download, under `filename`.
 * @param {Blob} blob @param {string} filename
 */
export function saveFile(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_MS);
}
