// What the package's tests share: the server the Python side started (STABLEMASTER_URL),
// encounters created on it, clients opened with the `ws` package's WebSocket and closed after
// each test, and arguments built from an entry's JSON Schema and checked by a strict ajv.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import WebSocket from "ws";
import { Client } from "../src/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const PUBLISHED = path.resolve(here, "../../../docs/protocol");

/** The server's websocket URL; the tests fail (they do not skip) without one. */
export function serverUrl() {
  const url = process.env.STABLEMASTER_URL;
  assert.ok(url, "STABLEMASTER_URL is not set: run these tests with `.venv/bin/python -m pytest tests/test_js_package.py`, which starts a server for them");
  return url;
}

export const PARTY = [
  { name: "Twilight Sparkle", id: "twilight", kind: "pc", initiative: 3 },
  { name: "Rainbow Dash", id: "dash", kind: "pc", initiative: 5 },
  { name: "Diamond Dog", id: "dog", kind: "npc", initiative: 1 },
];

/** An encounter of PARTY (or `combatants`) and its GM's client, connected; `open` connects
 *  more clients, all closed when the test ends. */
export async function newTable(t, { combatants = PARTY, options = {}, name = "Package test" } = {}) {
  const url = serverUrl();
  const created = await Client.createEncounter({ url, WebSocket }, { name, combatants, options });
  const opened = [];
  t.after(() => { for (const c of opened) c.close(); });
  const open = async (credentials, extra = {}) => {
    const c = new Client({ url, WebSocket, ...credentials, ...extra });
    opened.push(c);
    await c.connect();
    return c;
  };
  const gm = await open({ token: created.gm_token });
  const invite = async (...cids) => (await gm.command("issue_invite", { combatants: cids })).result.token;
  return { url, encounter: created.encounter, gmToken: created.gm_token, gm, open, invite };
}

/** The GM ends turns until `cid`'s turn runs. */
export async function untilTurnOf(gm, cid, turns = 12) {
  for (let i = 0; i < turns; i++) {
    await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
    const end = gm.legal.find((a) => a.action === "end_turn");
    if (end.combatant === cid) return end;
    await gm.perform(end);
  }
  assert.fail(`no turn of ${cid} in ${turns} turns`);
}

const vocabulary = JSON.parse(fs.readFileSync(path.join(PUBLISHED, "vocabulary.json"), "utf8"));

/** ajv as an integrator's strict validator takes the published schemas. */
export function strictAjv() {
  const ajv = new Ajv2020({ strict: true, logger: { log() {}, warn(m) { throw new Error(m); }, error(m) { throw new Error(m); } } });
  ajv.addVocabulary(Object.keys(vocabulary.properties));
  return ajv;
}

function resolve(root, node) {
  while (node && node.$ref) node = node.$ref.split("/").slice(1).reduce((n, k) => n[k], root);
  return node;
}

/** A value the schema takes: its first choice, its smallest number, a short string. */
function sample(root, node) {
  node = resolve(root, node);
  if ("const" in node) return node.const;
  if (node.enum) return node.enum[0];
  if (node.anyOf) return sample(root, node.anyOf.find((s) => resolve(root, s).type !== "null") || node.anyOf[0]);
  switch (node.type) {
    case "integer": case "number": return node.minimum ?? 0;
    case "boolean": return false;
    case "array": return Array.from({ length: node.minItems || 0 }, () => sample(root, node.items));
    case "object": return {};
    case "null": return null;
    default: return "x".repeat(Math.max(1, node.minLength || 0));
  }
}

/** The arguments of a legal_actions entry built from its JSON Schema: every required one,
 *  a target among the entry's `targets`, a choice among its `options`. */
export function argsFor(entry, schema) {
  const args = {};
  for (const name of schema.required || []) {
    if (name === "target" && entry.targets && entry.targets.length) args.target = entry.targets[0];
    else if (name === "request" && entry.targets && entry.targets.length) args.request = entry.targets[0];
    else if (entry.options && entry.options[name] && entry.options[name].length) args[name] = entry.options[name][0];
    else args[name] = sample(schema, schema.properties[name]);
  }
  return args;
}

/** The event messages a client received, as it received them. */
export function recorder(client) {
  const events = [];
  client.on("event", (m) => events.push(m));
  return events;
}
