// Whether the config's dataset is on this server: where it is not, the form says so before
// Start (where the files must go, and what works here instead) and holds Start back; under
// the data.root field, what this server accepts there.
import { ApiError, api } from "../../api.js";
import { h, replace } from "../../dom.js";

/** @typedef {{input: HTMLElement, wrap: HTMLElement, setError: (msg: string|null) => void}} Leaf */

export class DataCheck {
  /**
   * @param {Leaf|undefined} rootLeaf the data.root field
   * @param {(path: string, value: any) => void} setField
   * @param {() => void} changed called once `problem` is known again
   */
  constructor(rootLeaf, setField, changed) {
    this.box = h("div", { class: "data-status", role: "status", hidden: true });
    this.rootField = rootHelp(rootLeaf);
    this.setField = setField;
    this.changed = changed;
    /** @type {string|null} why Start cannot run: the data is not on this server */
    this.problem = null;
    /** the dataset, root and download checked last */
    this.key = "";
  }

  /** @param {Record<string, any>} data the config's data section */
  async check(data) {
    const name = String(data.dataset ?? "");
    const root = String(data.root ?? "data");
    const key = `${name}\u0000${root}\u0000${Boolean(data.download)}`;
    if (!name || key === this.key) return;
    this.key = key;
    /** @type {{problem: string|null, shown: any[]|null}} */
    let found = { problem: null, shown: null };
    try {
      const status = await api.dataset(name, root);
      if (key !== this.key) return; // a newer check is under way
      this.rootField.show(status);
      if (!status.present && !(data.download && status.downloadAllowed)) found = this.missing(name, status);
    } catch (err) {
      if (key !== this.key) return;
      // An unknown dataset is the form's to report at its field; a root outside the data
      // root is said here, in the server's words, at the field and on the button.
      if (!(err instanceof ApiError && err.status === 404)) found = this.refused(err);
    }
    this.problem = found.problem;
    this.box.hidden = found.shown === null;
    replace(this.box, found.shown ?? []);
    this.changed();
  }

  /** @param {string} name @param {import("../../api.js").DatasetStatus} status */
  missing(name, status) {
    const problem = `${name} is not on this server`;
    const shown = [
      h("p", {}, status.advice ?? problem),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", on: { click: () => this.setField("data.dataset", "digits") } }, "Use digits"),
        status.downloadAllowed &&
          h("button", { type: "button", on: { click: () => this.setField("data.download", true) } }, "Download it"),
      ),
    ];
    return { problem, shown };
  }

  /** @param {unknown} err */
  refused(err) {
    const reason =
      err instanceof ApiError && err.fields.length
        ? err.fields[0].message
        : String(err instanceof Error ? err.message : err);
    const problem = `data.root: ${reason}`;
    this.rootField.refuse(reason);
    return { problem, shown: [h("p", {}, problem)] };
  }
}

/**
 * Under the `data.root` field: what this server accepts there and where its data root is,
 * and the folders in it that hold the chosen dataset (the field's suggestions), all as
 * `GET /api/datasets/{name}` gives them.
 * @param {Leaf|undefined} leaf
 */
function rootHelp(leaf) {
  const list = h("datalist", { id: "data-root-folders" });
  const note = h("div", { class: "help root-rule" });
  if (leaf) {
    leaf.input.setAttribute("list", "data-root-folders");
    leaf.wrap.append(note, list);
  }
  return {
    /** @param {import("../../api.js").DatasetStatus} status */
    show(status) {
      note.textContent = status.fromRoot
        ? `This server's data root is ${status.dataRoot}; data.root is ${status.rule}. ` +
          (status.holding.length
            ? `Folders holding ${status.dataset}: ${status.holding.join(", ")}.`
            : `No folder in it holds ${status.dataset} yet.`)
        : "";
      replace(
        list,
        status.holding.map((f) => h("option", { value: f })),
      );
    },
    /** @param {string} reason the server's */
    refuse(reason) {
      leaf?.setError(reason);
    },
  };
}
