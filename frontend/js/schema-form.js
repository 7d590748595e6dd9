// A form generated from a JSON Schema (pydantic's RunConfig schema): objects become
// fieldsets, enums selects, booleans checkboxes, numbers bounded inputs, nullable fields
// accept an empty value. Inside an object, a sub-object named after a value of a sibling
// enum (algorithm.fedar for algorithm.name = "fedar") shows only while that value is chosen.
import { h } from "./dom.js";
import { getPath, setPath } from "./paths.js";

/**
 * @typedef {{kind: "enum"|"bool"|"int"|"number"|"string"|"list", nullable: boolean, node: any}} LeafType
 * @typedef {{path: string, key: string, type: LeafType, wrap: HTMLElement, input: HTMLInputElement|HTMLSelectElement|HTMLTextAreaElement,
 *   get: () => any, set: (v: any) => void, setError: (msg: string|null) => void}} Leaf
 * @typedef {{path: string, el: HTMLElement, error: HTMLElement}} Group
 */

/** @param {any} root @param {any} node */
function resolve(root, node) {
  if (node && node.$ref) {
    const name = node.$ref.replace("#/$defs/", "");
    return { ...root.$defs[name], ...withoutRef(node) };
  }
  return node;
}

/** @param {any} node */
function withoutRef(node) {
  const { $ref, ...rest } = node;
  return rest;
}

/** @param {any} node @returns {LeafType} */
function leafType(node) {
  let inner = node;
  let nullable = false;
  if (Array.isArray(node.anyOf)) {
    const options = node.anyOf.filter((/** @type {any} */ o) => o.type !== "null");
    nullable = options.length < node.anyOf.length;
    inner = { ...options[0], description: node.description, default: node.default, "x-applies": node["x-applies"] };
  }
  /** @type {LeafType["kind"]} */
  let kind = "string";
  if (Array.isArray(inner.enum)) kind = "enum";
  else if (inner.type === "boolean") kind = "bool";
  else if (inner.type === "integer") kind = "int";
  else if (inner.type === "number") kind = "number";
  else if (inner.type === "array") kind = "list";
  return { kind, nullable, node: inner };
}

/**
 * A numeric field's bounds, read from its schema alone (the server validates with the
 * same): the hint ("> 0" for `exclusiveMinimum`, "≥ 0" for `minimum`) and the input's
 * `min`/`max`, which are inclusive in HTML, so set from `minimum`/`maximum` only (an input
 * with min="0" for "> 0" would step to 0, which the server refuses).
 * @param {any} n @returns {{hint: string, min: string|null, max: string|null}}
 */
export function bounds(n) {
  const parts = [];
  if (n.minimum !== undefined) parts.push(`≥ ${n.minimum}`);
  if (n.exclusiveMinimum !== undefined) parts.push(`> ${n.exclusiveMinimum}`);
  if (n.maximum !== undefined) parts.push(`≤ ${n.maximum}`);
  if (n.exclusiveMaximum !== undefined) parts.push(`< ${n.exclusiveMaximum}`);
  const attr = (/** @type {any} */ v) => (v === undefined ? null : String(v));
  return { hint: parts.join(", "), min: attr(n.minimum), max: attr(n.maximum) };
}

/**
 * A leaf's input: a select of an enum, a checkbox of a flag, a bounded number, comma-separated
 * text of a list, a text area of CSV, else a line of text.
 * @param {string} path @param {string} id @param {LeafType} type @returns {any}
 */
function leafInput(path, id, type) {
  const n = type.node;
  if (type.kind === "enum") {
    // A registered component's label where the schema gives one (`x-labels`), its name otherwise.
    const labels = n["x-labels"] ?? {};
    return h(
      "select",
      { id, name: path },
      n.enum.map((/** @type {string} */ v) =>
        h("option", { value: v, title: v }, labels[v] && labels[v] !== v ? `${labels[v]} (${v})` : v),
      ),
    );
  }
  if (type.kind === "bool") return h("input", { id, name: path, type: "checkbox" });
  if (type.kind === "int" || type.kind === "number") {
    const { min, max } = bounds(n);
    return h("input", {
      id,
      name: path,
      type: "number",
      step: type.kind === "int" ? "1" : "any",
      min,
      max,
      placeholder: type.nullable ? "none" : "",
    });
  }
  if (type.kind === "list") {
    return h("input", {
      id,
      name: path,
      type: "text",
      placeholder: type.nullable ? "none (comma-separated numbers)" : "comma-separated numbers",
    });
  }
  if (/\bCSV\b/.test(n.description ?? "")) return h("textarea", { id, name: path, rows: 3, spellcheck: false });
  return h("input", { id, name: path, type: "text", maxLength: n.maxLength ?? null });
}

/**
 * A leaf's value as its input holds it, in its type (an empty nullable field: null).
 * @param {any} input @param {LeafType} type
 */
function inputValue(input, type) {
  if (type.kind === "enum") return input.value;
  if (type.kind === "bool") return input.checked;
  const raw = String(input.value).trim();
  if (type.kind === "string") return raw === "" && type.nullable ? null : input.value;
  if (raw === "") return type.nullable ? null : type.kind === "list" ? [] : null;
  if (type.kind === "list")
    return raw
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => (Number.isNaN(Number(t)) ? t : Number(t)));
  return Number(raw);
}

/**
 * Show `v` in a leaf's input.
 * @param {any} input @param {LeafType} type @param {any} v
 */
function showValue(input, type, v) {
  if (type.kind === "bool") input.checked = Boolean(v);
  else if (v === null || v === undefined) input.value = "";
  else if (Array.isArray(v)) input.value = v.join(", ");
  else input.value = String(v);
}

/** @param {string} path @param {string} key @param {LeafType} type @returns {Leaf} */
function leaf(path, key, type) {
  const n = type.node;
  const id = `f-${path.replaceAll(".", "-")}`;
  const input = leafInput(path, id, type);
  const error = h("div", { class: "field-error", role: "alert", hidden: true });
  const hint = [n.description, bounds(n).hint, type.nullable ? "empty = none" : ""].filter(Boolean).join(" · ");
  const wrap = h(
    "div",
    { class: `field field-${type.kind}`, dataset: { path } },
    type.kind === "bool"
      ? h("label", { class: "check", for: id }, input, h("span", { class: "field-name" }, key))
      : [h("label", { for: id, class: "field-name" }, key), input],
    hint && h("div", { class: "help" }, hint),
    error,
  );
  const setError = (/** @type {string|null} */ msg) => {
    error.textContent = msg ?? "";
    error.hidden = !msg;
    wrap.classList.toggle("invalid", Boolean(msg));
  };
  input.addEventListener("input", () => setError(null));
  input.addEventListener("change", () => setError(null));
  const set = (/** @type {any} */ v) => {
    showValue(input, type, v);
    setError(null);
  };
  return { path, key, type, wrap, input, get: () => inputValue(input, type), set, setError };
}

/** Whether `el` or an element between it and `top` is hidden. @param {Element} el @param {Element} top */
function hiddenBelow(el, top) {
  for (let e = /** @type {Element|null} */ (el); e && e !== top; e = e.parentElement) {
    if (/** @type {HTMLElement} */ (e).hidden) return true;
  }
  return false;
}

/**
 * Build the form.
 * @param {any} schema
 */
export function schemaForm(schema) {
  return new SchemaForm(schema);
}

class SchemaForm {
  /** @param {any} schema */
  constructor(schema) {
    this.schema = schema;
    /** @type {Leaf[]} */
    this.leaves = [];
    /** @type {Group[]} the sections, innermost first */
    this.groups = [];
    /** @type {(() => void)[]} what shows the sections and fields of the values chosen */
    this.syncs = [];
    this.element = this.objectFieldset(resolve(schema, schema), "", "run");
    this.watchConditional();
    this.set({});
  }

  /** @param {any} node @param {string} path @param {string} title */
  objectFieldset(node, path, title) {
    const props = Object.entries(node.properties ?? {}).map(([key, sub]) => [key, resolve(this.schema, sub)]);
    const objectKeys = new Set(props.filter(([, sub]) => sub.type === "object").map(([key]) => key));
    // Sibling enums whose values name object properties select which of them is shown
    // (data.dataset and data.partition each select their own).
    const selectors = props.filter(
      ([, sub]) => Array.isArray(sub.enum) && sub.enum.some((/** @type {string} */ v) => objectKeys.has(v)),
    );
    const selectorOf = (/** @type {string} */ key) => selectors.find(([, sub]) => sub.enum.includes(key));
    const fields = h("div", { class: "fields" });
    const nested = h("div", { class: "nested" });
    const error = h("div", { class: "field-error", role: "alert", hidden: true });
    /** @type {[string, HTMLElement, string][]} */
    const variants = [];
    for (const [key, sub] of props) {
      const subPath = path ? `${path}.${key}` : key;
      if (sub.type === "object") {
        const selector = selectorOf(key);
        const fs = this.objectFieldset(sub, subPath, selector ? `${subPath} — ${key} parameters` : subPath);
        if (selector) {
          fs.classList.add("variant");
          variants.push([key, fs, selector[0]]);
          fields.appendChild(fs);
        } else nested.appendChild(fs);
      } else {
        const l = leaf(subPath, key, leafType(sub));
        this.leaves.push(l);
        fields.appendChild(l.wrap);
      }
    }
    for (const [name, sub] of selectors) this.watchSelector(path, name, sub, variants);
    const fs = h(
      "fieldset",
      { class: path ? "section" : "section root", dataset: { path } },
      h("legend", {}, title),
      node.description && h("div", { class: "help" }, node.description),
      error,
      fields,
    );
    this.groups.push({ path, el: fs, error });
    const wrapper = path ? fs : h("div", { class: "schema-form" }, fs, nested);
    if (path) fs.appendChild(nested);
    return wrapper;
  }

  /**
   * Show the variant (sub-object) of `path` that the enum `name` chooses, as it changes.
   * @param {string} path @param {string} name @param {any} sub its schema
   * @param {[string, HTMLElement, string][]} variants each variant's key, fieldset and the enum choosing it
   */
  watchSelector(path, name, sub, variants) {
    const control = (/** @type {string} */ key) => this.leaves.find((l) => l.path === (path ? `${path}.${key}` : key));
    const input = /** @type {HTMLSelectElement} */ (control(name)?.input);
    // `x-auto`: what "auto" means, by the value of another field (the dataset's own partition).
    const autos = Object.entries(sub["x-auto"] ?? {}).map(([p, map]) => ({
      leaf: this.leaves.find((l) => l.path === p),
      map: /** @type {Record<string, string>} */ (map),
    }));
    const chosen = () => {
      const auto = autos.find((a) => a.leaf && a.map[a.leaf.get()] !== undefined);
      return input.value === "auto" && auto ? auto.map[auto.leaf?.get()] : input.value;
    };
    const sync = () => {
      for (const [key, fs, by] of variants) if (by === name) fs.dataset.unchosen = String(chosen() !== key);
      this.showSections();
    };
    input.addEventListener("change", sync);
    for (const a of autos) a.leaf?.input.addEventListener("change", sync);
    this.syncs.push(sync);
  }

  /**
   * Fields of some datasets or partitions only (`x-applies` in the schema, e.g.
   * {"data.dataset": ["mean_estimation"]}) show while those are chosen.
   */
  watchConditional() {
    const conditional = this.leaves.filter((l) => l.type.node["x-applies"]);
    const showRelevant = () => {
      for (const l of conditional) {
        const conditions = Object.entries(l.type.node["x-applies"]);
        l.wrap.hidden = !conditions.every(([path, values]) => {
          const control = this.leaves.find((x) => x.path === path);
          return !control || /** @type {any[]} */ (values).includes(control.get());
        });
      }
      this.showSections();
    };
    for (const path of new Set(conditional.flatMap((l) => Object.keys(l.type.node["x-applies"])))) {
      this.leaves.find((x) => x.path === path)?.input.addEventListener("change", showRelevant);
    }
    this.syncs.push(showRelevant);
    showRelevant();
  }

  /**
   * A section shows while it has a field to show: not a variant that is not chosen, nor
   * one whose fields all apply to other choices (the round's, without a system model).
   * Groups come innermost first, so a section's subsections are settled before it.
   */
  showSections() {
    for (const g of this.groups) {
      if (!g.path) continue;
      const shown = [...g.el.querySelectorAll(".field")].some((f) => !hiddenBelow(f, g.el));
      g.el.hidden = g.el.dataset.unchosen === "true" || !shown;
    }
  }

  /** @returns {Record<string, any>} */
  value() {
    /** @type {Record<string, any>} */
    const out = {};
    for (const l of this.leaves) setPath(out, l.path, l.get());
    return out;
  }

  /** Fill every field: from `config` where it has the path, else the schema default. @param {Record<string, any>} config */
  set(config) {
    for (const l of this.leaves) {
      const v = getPath(config, l.path);
      l.set(v === undefined ? (l.type.node.default ?? null) : v);
    }
    for (const sync of this.syncs) sync();
    this.clearErrors();
  }

  /**
   * Show errors next to their fields, several at one field together; an error about an
   * item of a list typed as text (`data.mean_estimation.means.3`) at that list's field, naming the item.
   * Returns those that have no visible field.
   * @param {import("./api.js").FieldError[]} errors
   * @returns {import("./api.js").FieldError[]}
   */
  showErrors(errors) {
    const unplaced = [];
    /** @type {Map<Leaf, string[]>} */
    const atLeaf = new Map();
    for (const e of errors) {
      const { leaf: l, message } = this.placed(e);
      if (l && !l.wrap.closest("[hidden]")) {
        atLeaf.set(l, [...(atLeaf.get(l) ?? []), message]);
        continue;
      }
      const g = this.groups
        .filter((x) => x.path && (e.path === x.path || e.path.startsWith(`${x.path}.`)) && !x.el.closest("[hidden]"))
        .sort((a, b) => b.path.length - a.path.length)[0];
      if (g && !l) {
        g.error.textContent = e.message;
        g.error.hidden = false;
      } else unplaced.push(e);
    }
    for (const [l, messages] of atLeaf) l.setError([...new Set(messages)].join("; "));
    const first = this.element.querySelector(".invalid, .section > .field-error:not([hidden])");
    first?.scrollIntoView({ block: "center" });
    return unplaced;
  }

  /**
   * The field an error belongs to, and its message there.
   * @param {import("./api.js").FieldError} e @returns {{leaf: Leaf|undefined, message: string}}
   */
  placed(e) {
    const exact = this.leaves.find((x) => x.path === e.path);
    if (exact) return { leaf: exact, message: e.message };
    const list = this.leaves.find(
      (x) => x.type.kind === "list" && /^\d+$/.test(e.path.slice(x.path.length + 1)) && e.path.startsWith(`${x.path}.`),
    );
    if (!list) return { leaf: undefined, message: e.message };
    const index = Number(e.path.slice(list.path.length + 1));
    const item = list.get()?.[index];
    return {
      leaf: list,
      message: `item ${index + 1}${item === undefined ? "" : ` (${JSON.stringify(item)})`}: ${e.message}`,
    };
  }

  clearErrors() {
    for (const l of this.leaves) l.setError(null);
    for (const g of this.groups) g.error.hidden = true;
  }
}
