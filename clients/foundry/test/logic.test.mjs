// The bridge's pure functions on their own, and the module's folder as Foundry installs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { desiredCombat, foundryIds, foundryTurnOrder, mirrors, replayOperations } from "../scripts/mirror.js";
import { commandFor, holdBack, intentOf, parseIntegrationLink, primaryGM } from "../scripts/intents.js";
import { diceCheckCommand, diceMessages, facesFromRoll, rollFormula, chatMessageFor, struck, takenBack } from "../scripts/chat.js";
import { parseMapping, statBlockFromToken } from "../scripts/actors.js";
import { countdown, timerFlags } from "../scripts/timer.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");

test("the primary GM is the active GM with the lowest user id", () => {
  const users = [
    { id: "b", isGM: true, active: true }, { id: "a", isGM: true, active: false },
    { id: "0", isGM: false, active: true }, { id: "c", isGM: true, active: true },
  ];
  assert.equal(primaryGM(users), "b");
  assert.equal(primaryGM(users.map((u) => ({ ...u, active: u.id === "a" }))), "a");
  assert.equal(primaryGM([{ id: "p", isGM: false, active: true }]), null);
});

test("an integration link gives the websocket URL and the token", () => {
  assert.deepEqual(parseIntegrationLink("wss://sm.example.org/ws#token=sm1.a.b.c"), { url: "wss://sm.example.org/ws", token: "sm1.a.b.c" });
  assert.deepEqual(parseIntegrationLink(" http://127.0.0.1:8765/table/#token=sm1.x "), { url: "ws://127.0.0.1:8765/ws", token: "sm1.x" });
  assert.throws(() => parseIntegrationLink("https://sm.example.org/ws"), /no token/);
  assert.throws(() => parseIntegrationLink("not a link"), /not a URL/);
});

test("equal initiative counts still sort into the server's order; the turn indexes the sorted turns", () => {
  const c = (id, hidden = false) => ({ id, name: id, kind: "npc", hidden, external_ids: {}, vitals: { condition: ["active", "fit"] } });
  const state = {
    phase: ["scene", "rounds", "turn"], round: 2, current: "b", ended: false,
    combatants: [c("z"), c("b"), c("a"), c("h", true)],
    order: ["z", "h", "b", "a"],
    initiative: [{ combatant: "z", total: 12, count: 12 }, { combatant: "h", total: 12, count: 12 }, { combatant: "b", total: 12, count: 12 }, { combatant: "a", total: 3, count: 3 }],
  };
  const d = desiredCombat(state);
  assert.deepEqual(d.combatants.map((x) => x.combatant), ["z", "b", "a"]);
  assert.deepEqual(d.combatants.map((x) => x.initiative), [12, 11.99, 3]);
  assert.equal(d.turn, 1);
  const docs = d.combatants.map((x, i) => ({ id: `id${9 - i}`, initiative: x.initiative })).reverse();
  assert.deepEqual(docs.sort(foundryTurnOrder).map((x) => x.initiative), [12, 11.99, 3]);
  assert.equal(desiredCombat({ ...state, current: "h" }).turn, null, "a hidden combatant's turn shows as nobody's");
  assert.deepEqual(foundryIds({ foundry: "Actor.A1.Token.T1" }), { actorId: "A1", tokenId: "T1" });
});

test("the tracker's controls: held back unless marked, and the commands they send", () => {
  assert.equal(intentOf({ round: 0, turn: null }, { round: 1, turn: 0 }), "start");
  assert.equal(intentOf({ round: 1, turn: 0 }, { turn: 1 }), "next");
  assert.equal(intentOf({ round: 1, turn: 2 }, { round: 2, turn: 0 }), "next");
  assert.equal(intentOf({ round: 2, turn: 0 }, { round: 1, turn: 2 }), "previous");
  assert.equal(intentOf({ round: 1, turn: 0 }, { active: true }), null);
  assert.deepEqual(holdBack({ round: 1, turn: 0 }, { turn: 1 }, { stablemaster: true }), { allow: true });
  assert.deepEqual(holdBack({ round: 1, turn: 0 }, { turn: 1 }, {}), { allow: false, intent: "next" });
  assert.deepEqual(commandFor("next", { turnId: "T", current: "dog" }, null),
    { type: "act", fields: { combatant: "dog", action: "end_turn", args: {} }, expectTurn: "T" });
  assert.ok("refuse" in commandFor("previous", { turnId: "T", current: "dog" }, null));
  assert.ok("refuse" in commandFor("next", { turnId: "T", current: null }, { current: null }));
});

test("dice: a formula of the request's dice, and the faces of Foundry's roll in their order", () => {
  assert.equal(rollFormula([20]), "1d20");
  assert.equal(rollFormula([6, 6, 8, 6]), "2d6 + 1d8 + 1d6");
  const roll = { dice: [{ faces: 6, results: [{ result: 2, active: true }, { result: 5, active: true }] }, { faces: 8, results: [{ result: 7 }] }] };
  assert.deepEqual(facesFromRoll(roll, [6, 6, 8]), [2, 5, 7]);
  assert.throws(() => facesFromRoll(roll, [20]), /asks for d20/);
  assert.equal(chatMessageFor({ event: { kind: "x" } }), null);
  assert.equal(chatMessageFor({ cursor: "c", event: { kind: "x" }, summary: { text: "a <b>" } }).content, '<p class="stablemaster-summary">a &lt;b&gt;</p>');
});

test("taken back: the positions a history marks, and a summary struck through once", () => {
  assert.deepEqual(takenBack([{ cursor: "a", taken_back: true }, { cursor: "b" }, { seq: 7, taken_back: true }]), ["a", 7]);
  const once = struck('<p class="stablemaster-summary">Twilight slips.</p>');
  assert.equal(once, '<p class="stablemaster-summary taken-back"><s>Twilight slips.</s></p>');
  assert.equal(struck(once), once);
});

test("the turn timer: moved to Foundry's clock, and its countdown", () => {
  const server = { number: 2, combatant: "dash", deadline: 100_000, warn_at: 90_000, remaining: null };
  const flags = timerFlags(server, 40_000, 45_000); // Foundry's clock 5 s ahead of the server's
  assert.deepEqual(flags, { number: 2, combatant: "dash", deadline: 105_000, warnAt: 95_000, remaining: null });
  assert.deepEqual(countdown(flags, 45_000), { text: "1:00 left", warning: false });
  assert.deepEqual(countdown(flags, 99_500), { text: "0:06 left", warning: true });
  assert.deepEqual(countdown(flags, 200_000), { text: "0:00 left", warning: true });
  const paused = timerFlags({ ...server, deadline: null, remaining: 40_000 }, 0, 0);
  assert.deepEqual(countdown(paused, 1e9), { text: "0:40 left (paused)", warning: false });
  assert.equal(timerFlags(null, 0, 0), null);
  assert.equal(countdown(null, 0), null);
});

test("a stat block by the mapping", () => {
  const mapping = parseMapping('{"name": "actor.name", "initiative": "actor.system.init", "stats.fatigue_points": {"value": 9}, "side": "actor.system.nope"}');
  const block = statBlockFromToken({ id: "A", name: "Applejack", hasPlayerOwner: true, system: { init: "2" } }, { id: "T", name: "AJ", hidden: false }, mapping);
  assert.deepEqual(block, { name: "Applejack", kind: "pc", hidden: false, initiative: 2, stats: { fatigue_points: 9 }, external_ids: { foundry_token: "T", foundry_actor: "A" } });
  assert.throws(() => parseMapping('{"name": 3}'), /mapping name/);
});

test("the module's folder installs as it is: module.json, its scripts, the package's modules vendored unchanged", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "module.json"), "utf8"));
  assert.equal(manifest.id, "stablemaster-bridge");
  assert.deepEqual([manifest.compatibility.minimum, manifest.compatibility.verified], ["12", "13"]);
  for (const file of [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((l) => l.path)]) assert.ok(fs.existsSync(path.join(root, file)), file);
  const vendored = path.join(root, "scripts/vendor/stablemaster-client");
  const sources = ["src", "types"].flatMap((dir) => fs.readdirSync(path.resolve(root, "../js", dir)).map((name) => [dir, name]));
  assert.deepEqual(fs.readdirSync(vendored).sort(), sources.map(([, name]) => name).sort());
  for (const [dir, name] of sources) {
    assert.equal(fs.readFileSync(path.join(vendored, name), "utf8"), fs.readFileSync(path.resolve(root, "../js", dir, name), "utf8"),
      `scripts/vendor/stablemaster-client/${name} differs from clients/js/${dir}: run \`npm run vendor\``);
  }
  const imports = (file) => [...fs.readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
  for (const name of fs.readdirSync(path.join(root, "scripts")).filter((n) => n.endsWith(".js"))) {
    for (const spec of imports(path.join(root, "scripts", name))) {
      assert.ok(spec.startsWith("./"), `${name} imports ${spec}: outside the module's folder`);
    }
  }
});

test("the verifiable dice's chat lines: the commitment once, then the secret with its check", () => {
  const said = { commitment: null, secret: null };
  const check = "python -m clients.dice_check ws://sm.example/ws sm1.x";
  assert.deepEqual(diceMessages({ commitment: null, secret: null }, said, check), [], "dice fixed by a seed: nothing to check");
  const [committed, ...more] = diceMessages({ commitment: "ab<12", secret: null }, said, check);
  assert.deepEqual(more, []);
  assert.equal(committed.flags["stablemaster-bridge"].kind, "dice_committed");
  assert.match(committed.content, /SHA-256 <code>ab&lt;12<\/code>/);
  assert.deepEqual(diceMessages({ commitment: "ab<12", secret: null }, said, check), [], "said twice");
  const [revealed] = diceMessages({ commitment: "ab<12", secret: "cd" }, said, check);
  assert.equal(revealed.flags["stablemaster-bridge"].kind, "dice_revealed");
  assert.ok(revealed.content.includes("<code>cd</code>") && revealed.content.includes(`<code>${check}</code>`));
  assert.deepEqual(diceMessages({ commitment: "ab<12", secret: "cd" }, said, check), []);
  assert.equal(diceCheckCommand("ws://sm.example/ws", "sm1.x"), check);
});

test("a replay writes a combat of its own, and the combat only", () => {
  assert.equal(mirrors({ encounter: "e1", turnId: "t" }, false), true);
  assert.equal(mirrors({ encounter: "e1", turnId: "t" }, true), false);
  assert.equal(mirrors({ encounter: "e1", replay: true }, true), true);
  assert.equal(mirrors({ encounter: "e1", replay: true }, false), false);
  assert.equal(mirrors({}, false), false);
  assert.equal(mirrors(undefined, true), false);
  const ops = {
    deleteCombatants: ["c1"], createCombatants: [], updateCombatants: [], updateCombat: { round: 2, turn: 0 },
    updateTokens: [{ _id: "tDog", hidden: false }], statuses: [{ tokenId: "tTwi", status: "prone", active: true }],
  };
  assert.deepEqual(replayOperations(ops), { ...ops, updateTokens: [], statuses: [] });
  assert.equal(ops.updateTokens.length, 1); // the live one's, untouched
});
