// In-page confirmation (no window.confirm): the question, a button that goes ahead and one
// that keeps things as they are, shown in a slot the page does not redraw while it asks.
import { h, replace } from "./dom.js";

/**
 * Ask in `slot`; resolves true when the action button is pressed, false on "Keep" or
 * Escape. A new question replaces an open one (which then resolves false).
 * @param {HTMLElement} slot
 * @param {string} question
 * @param {string} action label of the button that goes ahead
 * @returns {Promise<boolean>}
 */
export function confirmIn(slot, question, action) {
  /** @type {any} */ (slot).pendingAnswer?.(false);
  return new Promise((resolve) => {
    /** @param {boolean} ok */
    const answer = (ok) => {
      /** @type {any} */ (slot).pendingAnswer = null;
      replace(slot);
      slot.hidden = true;
      resolve(ok);
    };
    /** @type {any} */ (slot).pendingAnswer = answer;
    const go = h("button", { type: "button", class: "danger", on: { click: () => answer(true) } }, action);
    const box = h(
      "div",
      { class: "confirm-box", role: "alertdialog", "aria-label": question },
      h("p", {}, question),
      h("div", { class: "actions" }, go, h("button", { type: "button", on: { click: () => answer(false) } }, "Keep")),
    );
    box.addEventListener("keydown", (e) => {
      if (/** @type {KeyboardEvent} */ (e).key === "Escape") answer(false);
    });
    replace(slot, box);
    slot.hidden = false;
    /** @type {HTMLElement} */ (go).focus();
  });
}
