import assert from "node:assert/strict";
import { test } from "node:test";

import { duration, headline, num, shortWhen } from "../../frontend/js/format.js";

test("numbers: 4 significant digits, exponents outside [1e-3, 1e5)", () => {
  assert.deepEqual(
    [num(0.76612345), num(0), num(null), num(Number.NaN), num(123456), num(0.0005), num(2, 3)],
    ["0.7661", "0", "—", "—", "1.23e+5", "5.00e-4", "2"],
  );
});

test("durations in s, min or h", () => {
  assert.deepEqual(
    [duration(5.25), duration(125), duration(7320), duration(null)],
    ["5.3 s", "2 min 5 s", "2 h 2 min", "—"],
  );
});

test("created dates are compact: the time today, the day otherwise", () => {
  const now = new Date(2026, 10, 25, 23, 0);
  assert.equal(shortWhen(new Date(2026, 10, 25, 9, 5), now), "09:05");
  assert.ok(shortWhen(new Date(2026, 10, 24, 9, 5), now).includes("24"));
  assert.ok(shortWhen(new Date(2025, 0, 2), now).includes("2025"));
  assert.equal(shortWhen(null), "—");
});

test("a summary's headline: accuracy, else gap, else loss", () => {
  assert.equal(headline({ best_test_acc: 0.91234 }), "best acc 0.912");
  assert.equal(headline({ best_test_acc: null, final_opt_gap: 0.5 }), "gap 0.5");
  assert.equal(headline({ final_test_loss: 1.25 }), "loss 1.25");
  assert.equal(headline(null), "—");
});
