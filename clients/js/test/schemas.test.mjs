// The published schemas (docs/protocol/) as an integrator's strict validator takes them: every
// one compiles with ajv's `strict: true` (every strict check, strictRequired among them, which
// ajv's defaults leave off) told of nothing but the published vocabulary,
// TypeScript declarations are generated from the message unions, and known-bad messages fail
// while known-good ones pass.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import { compile } from "json-schema-to-typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const published = path.resolve(here, "../../../docs/protocol");
const read = (name) => JSON.parse(fs.readFileSync(path.join(published, name), "utf8"));
const vocabulary = read("vocabulary.json");

function strictAjv() {
  // strict: true turns on every strict check (ajv's defaults leave strictRequired off); the
  // warnings (strictTypes...) are made errors here too
  const ajv = new Ajv2020({ strict: true, logger: { log() {}, warn(m) { throw new Error(m); }, error(m) { throw new Error(m); } } });
  ajv.addVocabulary(Object.keys(vocabulary.properties));
  return ajv;
}

/** Every schema published: one per file, and each entry of the argument schemas' bundle. */
function everySchema() {
  const out = [];
  for (const file of fs.readdirSync(published).filter((f) => f.endsWith(".json")).sort()) {
    const doc = read(file);
    if (file === "args-schemas.json") {
      for (const [id, schema] of Object.entries(doc)) if (id !== "$comment") out.push([`${file} ${id}`, schema]);
    } else out.push([file, doc]);
  }
  return out;
}

test("every published schema compiles under ajv strict: true with only the published vocabulary", () => {
  const schemas = everySchema();
  assert.ok(schemas.length > 90, `only ${schemas.length} schemas found`);
  const failed = [];
  for (const [name, schema] of schemas) {
    try { strictAjv().compile(schema); } catch (e) { failed.push(`${name}: ${e.message}`); }
  }
  assert.deepEqual(failed, []);
});

test("the vocabulary names every annotation the schemas carry, with the value it has", () => {
  const check = strictAjv().compile(vocabulary);
  const unnamed = new Set();
  const walk = (node, where, names) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`, false));
    if (node === null || typeof node !== "object") return;
    const annotations = {};
    for (const [key, value] of Object.entries(node)) {
      if (!names && key.startsWith("x-")) {
        if (!(key in vocabulary.properties)) unnamed.add(key);
        annotations[key] = value;
      }
      if (["default", "const", "enum", "examples", "x-known", "x-args", "required"].includes(key)) continue;
      walk(value, `${where}/${key}`, ["properties", "$defs", "patternProperties"].includes(key) && !names);
    }
    assert.ok(check(annotations), `${where}: ${JSON.stringify(check.errors)}`);
  };
  for (const [name, schema] of everySchema()) walk(schema, name, false);
  assert.deepEqual([...unnamed], []);
});

test("TypeScript declarations are generated from the message unions", async () => {
  for (const [file, expected] of [["client-messages.schema.json", ["Hello", "Act", "SubmitRoll"]],
    ["server-messages.schema.json", ["Welcome", "Snapshot", "LegalActions"]],
    ["events.schema.json", ["TurnStarted", "VitalsChanged"]]]) {
    const ts = await compile(read(file), file.replace(".schema.json", ""), { bannerComment: "", additionalProperties: false });
    for (const name of expected) assert.match(ts, new RegExp(`export interface ${name}\\b`), `${file}: no ${name}`);
    assert.ok(ts.length > 1000);
  }
});

test("known-bad messages fail validation and known-good ones pass", () => {
  const client = strictAjv().compile(read("client-messages.schema.json"));
  const good = [
    { type: "hello", versions: [1], token: "t" },
    { type: "act", id: "c1", combatant: "twilight", action: "end_turn" },
    { type: "submit_roll", id: "c2", request: "r1", faces: [14] },
  ];
  for (const m of good) assert.ok(client(m), `${JSON.stringify(m)}: ${JSON.stringify(client.errors)}`);
  const bad = [
    { type: "hello", versions: "1" },
    { type: "act", combatant: "twilight", action: "end_turn" },
    { type: "submit_roll", id: "c2", request: "r1", faces: [] },
    { type: "no_such_message", id: "c3" },
    { type: "act", id: "c4", combatant: "twilight", action: "end_turn", extra: true },
  ];
  for (const m of bad) assert.ok(!client(m), `${JSON.stringify(m)} passed`);
  const events = strictAjv().compile(read("events.schema.json"));
  assert.ok(!events({ kind: "turn_started" }));
  assert.ok(!events({ kind: "no_such_event" }));
});
