// The package's JSON Patch (RFC 6902), legal-delta fold and ids, on their own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyLegalDelta, applyPatch, parsePointer, PatchError, recallAfter, uuid } from "../src/index.js";

test("add, remove and replace on objects and arrays, escaped keys, the end of an array", () => {
  const doc = { a: { "x/y": 1, "t~": 2 }, list: [1, 2, 3], order: ["dash"] };
  applyPatch(doc, [
    { op: "replace", path: "/a/x~1y", value: 10 },
    { op: "remove", path: "/a/t~0" },
    { op: "add", path: "/a/new", value: { deep: [1] } },
    { op: "add", path: "/list/1", value: 9 },
    { op: "remove", path: "/list/0" },
    { op: "add", path: "/list/-", value: 4 },
    { op: "replace", path: "/order", value: ["dash", "twilight"] },
    { op: "move", from: "/a/new", path: "/moved" },
    { op: "copy", from: "/list", path: "/copy" },
    { op: "test", path: "/copy", value: [9, 2, 3, 4] },
  ]);
  assert.deepEqual(doc, { a: { "x/y": 10 }, list: [9, 2, 3, 4], order: ["dash", "twilight"], moved: { deep: [1] }, copy: [9, 2, 3, 4] });
  assert.deepEqual(parsePointer("/a~1b/~0c/0"), ["a/b", "~c", "0"]);
});

test("a member replaced keeps its place among the object's members", () => {
  const doc = { budget: { standard: true, move: true, swift: true } };
  applyPatch(doc, [{ op: "replace", path: "/budget/standard", value: false }]);
  assert.deepEqual(Object.keys(doc.budget), ["standard", "move", "swift"]);
  assert.equal(doc.budget.standard, false);
});

test("a value added is a copy: changing the patch later does not change the document", () => {
  const value = { n: 1 };
  const doc = {};
  applyPatch(doc, [{ op: "add", path: "/v", value }]);
  value.n = 2;
  assert.deepEqual(doc, { v: { n: 1 } });
});

test("an operation that does not apply throws a PatchError naming it", () => {
  for (const op of [
    { op: "replace", path: "/missing", value: 1 },
    { op: "remove", path: "/list/5" },
    { op: "add", path: "/list/7", value: 1 },
    { op: "add", path: "/no/such/parent", value: 1 },
    { op: "replace", path: "/list/01", value: 1 },
    { op: "test", path: "/list", value: [1] },
    { op: "splice", path: "/list" },
  ]) {
    assert.throws(() => applyPatch({ list: [1, 2] }, [{ op: "add", path: "/ok", value: 1 }, op]),
      (err) => err instanceof PatchError && err.index === 1 && err.operation === op, JSON.stringify(op));
  }
});

test("a legal delta keeps runs of the list held and takes new entries as they are", () => {
  const held = [{ action: "a" }, { action: "b" }, { action: "c" }];
  assert.deepEqual(applyLegalDelta(held, [[0, 1], { action: "x" }, [2, 1]]), [{ action: "a" }, { action: "x" }, { action: "c" }]);
  assert.equal(applyLegalDelta(held, [[2, 2]]), null);
  assert.equal(applyLegalDelta(held, [[-1, 1]]), null);
  assert.deepEqual(applyLegalDelta(held, []), []);
  // legal_recall: a run of what is recalled of a combatant; what a delta replaced is recalled
  const turn = [{ action: "attack", combatant: "dash" }, { action: "end_turn", combatant: "dash" }];
  const waiting = [{ action: "free", combatant: "dash" }];
  let recall = recallAfter(turn, waiting, new Map());
  assert.deepEqual(recall.get("dash"), turn);
  assert.deepEqual(applyLegalDelta(waiting, [[0, 2, "dash"]], recall), turn);
  assert.equal(applyLegalDelta(waiting, [[1, 2, "dash"]], recall), null);
  assert.equal(applyLegalDelta(waiting, [[0, 1, "dog"]], recall), null);
  recall = recallAfter(waiting, waiting, recall);
  assert.deepEqual(recall.get("dash"), turn); // unchanged entries recall nothing new
});

test("ids are UUIDs (v4), with or without a global crypto (Node 18 has none)", () => {
  const form = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  assert.match(uuid(), form);
  const had = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
  try {
    const ids = new Set(Array.from({ length: 100 }, () => uuid()));
    assert.equal(ids.size, 100);
    for (const id of ids) assert.match(id, form);
  } finally {
    Object.defineProperty(globalThis, "crypto", had);
  }
});
