// Buttons that download a file of the API (an export, a table, a figure, a model), fetched
// with the token (a plain link could not carry it) and saved under the server's name.
import { api } from "./api.js";
import { h, saveFile } from "./dom.js";

/**
 * @param {string} text the button's label
 * @param {() => string|null} path the API path at the time of the click (null: nothing to fetch)
 * @param {{title?: string, format?: string}} [o]
 * @returns {HTMLButtonElement}
 */
export function downloadButton(text, path, o = {}) {
  const button = /** @type {HTMLButtonElement} */ (
    h("button", { type: "button", title: o.title ?? "", dataset: { format: o.format ?? "" } }, text)
  );
  button.addEventListener("click", async () => {
    const at = path();
    if (at === null) return;
    button.disabled = true;
    try {
      const { blob, filename } = await api.download(at);
      saveFile(blob, filename);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
