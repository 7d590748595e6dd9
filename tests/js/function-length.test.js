// No front-end function is longer than 80 lines (declarations, expressions, arrows and
// methods alike, from their first line to their last), as the TypeScript parser reads them.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const LIMIT = 80;
const FRONTEND = new URL("../../frontend/js/", import.meta.url).pathname;

/**
 * Each function in `text` longer than LIMIT lines, as "file:line name (n lines)".
 * @param {string} file @param {string} text @returns {string[]}
 */
function longFunctions(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  /** @type {string[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > LIMIT) found.push(`${file}:${first + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function's name, or the name of what it is assigned to. @param {ts.Node} node */
function nameOf(node) {
  const named = /** @type {{name?: ts.Node}} */ (node).name;
  if (named) return named.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** @param {number} n @returns {string} a function of n lines */
function functionOf(n) {
  return ["function f() {", ...Array.from({ length: n - 2 }, (_, i) => `  const a${i} = ${i};`), "}"].join("\n");
}

test("no function in frontend/js is longer than 80 lines", () => {
  const files = readdirSync(FRONTEND, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".js"))
    .sort();
  assert.ok(files.length > 10);
  const found = files.flatMap((f) => longFunctions(`frontend/js/${f}`, readFileSync(join(FRONTEND, f), "utf8")));
  assert.deepEqual(found, [], `functions over ${LIMIT} lines:\n${found.join("\n")}`);
});

test("an 81-line function is found, an 80-line one is not, wherever it is", () => {
  assert.deepEqual(longFunctions("a.js", functionOf(81)), ["a.js:1 f (81 lines)"]);
  assert.deepEqual(longFunctions("a.js", functionOf(80)), []);
  const arrow = `// one line first\nconst g = ${functionOf(81).replace("function f() {", "() => {")};`;
  assert.deepEqual(longFunctions("b.js", arrow), ["b.js:2 g (81 lines)"]);
  const method = `class C {\n${functionOf(81).replace("function f() {", "m() {")}\n}`;
  assert.deepEqual(longFunctions("c.js", method), ["c.js:2 m (81 lines)"]);
});
