// The client against a real server: connect and negotiate, play a turn from the legal
// actions and their argument schemas, drop the socket and resume exactly, the view equal to a
// fresh snapshot, history pages, stale commands, physical dice, spectators, revoked links.
import { test } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { Client, CommandError, DEFAULT_FEATURES, unbatch } from "../src/index.js";
import { argsFor, newTable, recorder, serverUrl, strictAjv, untilTurnOf } from "../test-support/table.mjs";

test("connects with a token, negotiates version and features, holds the state and the legal actions", async (t) => {
  const { gm } = await newTable(t);
  assert.equal(gm.status, "live");
  assert.equal(gm.welcome.protocol, 1);
  assert.equal(gm.welcome.role, "gm");
  for (const f of DEFAULT_FEATURES) assert.ok(gm.granted(f), `${f} not granted`);
  await gm.waitFor((c) => c.state !== null && c.legal.length > 0);
  assert.deepEqual(gm.state.combatants.map((c) => c.id).sort(), ["dash", "dog", "twilight"]);
  assert.ok(gm.cursor && gm.cursor.length === 22, gm.cursor);
  assert.equal(gm.seq, null); // with cursors, no seqs
  assert.ok(gm.legal.some((a) => a.action === "start_encounter" && a.args_schema === "command.start_encounter"));
});

test("a batch's head (batch_head) is put back into the messages that leave it out", () => {
  const frame = {
    type: "batch", ts: 5,
    messages: [
      { type: "event", event: { kind: "turn_ended" }, cursor: "c" },
      { type: "event", encounter: "e1", ts: 4, event: { kind: "x" }, cursor: "d" },
      { type: "view", cursor: "c", patch: [] },
      { type: "ack", id: "p", cursor: "c", result: {}, duplicate: false },
    ],
  };
  assert.deepEqual(unbatch(frame, "e1"), [
    { type: "event", event: { kind: "turn_ended" }, cursor: "c", encounter: "e1", ts: 5 },
    { type: "event", encounter: "e1", ts: 4, event: { kind: "x" }, cursor: "d" },
    { type: "view", cursor: "c", patch: [], encounter: "e1" },
    { type: "ack", id: "p", cursor: "c", result: {}, duplicate: false },
  ]);
  // a summary said by its text alone (lean_events)
  assert.deepEqual(unbatch({ type: "event", event: { kind: "x" }, summary: "Words.", cursor: "c" }, "e1"),
    [{ type: "event", event: { kind: "x" }, summary: { text: "Words." }, cursor: "c", encounter: "e1" }]);
  // an ack's defaults, left out
  assert.deepEqual(unbatch({ type: "batch", messages: [{ type: "ack", id: "p" }] }, "e1"),
    [{ type: "ack", id: "p", result: {}, duplicate: false }]);
  // a message that leaves out only the encounter comes alone
  assert.deepEqual(unbatch({ type: "view", cursor: "c", patch: [] }, "e1"),
    [{ type: "view", cursor: "c", patch: [], encounter: "e1" }]);
  // the batch's cursor for the messages without a position of their own
  assert.deepEqual(unbatch({ type: "batch", cursor: "z", messages: [{ type: "view", patch: [] }, { type: "ack", id: "q", result: {} }] }, "e1"),
    [{ type: "view", patch: [], encounter: "e1", cursor: "z" }, { type: "ack", id: "q", result: {}, duplicate: false, cursor: "z" }]);
});

test("a player plays a turn from its legal actions, each argument built from the entry's schema and valid", async (t) => {
  const table = await newTable(t);
  const player = await table.open({ token: await table.invite("twilight") });
  assert.equal(player.welcome.role, "player");
  assert.deepEqual(player.welcome.combatants, ["twilight"]);
  const start = table.gm.legal.find((a) => a.action === "start_encounter");
  const startSchema = await table.gm.argsSchema(start);
  assert.ok(strictAjv().compile(startSchema)(argsFor(start, startSchema)));
  await table.gm.perform(start, argsFor(start, startSchema));
  await untilTurnOf(table.gm, "twilight");

  await player.waitFor((c) => c.actionsFor("twilight").some((a) => a.action === "attack"));
  assert.equal(player.state.current, "twilight");
  const attack = player.actionsFor("twilight").find((a) => a.action === "attack");
  assert.equal(attack.args_schema, "dramatic.attack");
  const schema = await player.argsSchema(attack);
  const args = argsFor(attack, schema);
  const valid = strictAjv().compile(schema);
  assert.ok(valid(args), JSON.stringify(valid.errors));
  assert.ok(attack.targets.includes(args.target));
  const events = recorder(player);
  const ack = await player.perform(attack, args);
  assert.equal(ack.type, "ack");
  assert.equal(ack.duplicate, false);
  assert.ok(events.some((m) => m.event.kind === "attack_resolved" && m.event.attacker === "twilight"), JSON.stringify(events.map((m) => m.event.kind)));
  assert.equal(ack.cursor, player.cursor); // the ack comes after the events and the view

  const turn = player.turnId;
  const end = player.actionsFor("twilight").find((a) => a.action === "end_turn");
  await player.perform(end, argsFor(end, await player.argsSchema(end)));
  await table.gm.waitFor((c) => c.state.current !== "twilight");
  await player.waitFor((c) => c.state.current !== "twilight");
  assert.notEqual(player.turnId, turn);
});

test("a command aimed at a turn that is over is refused as stale, with the current turn", async (t) => {
  const { gm } = await newTable(t);
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
  const before = gm.turnId;
  const end = gm.legal.find((a) => a.action === "end_turn");
  await gm.perform(end);
  await gm.waitFor((c) => c.turnId !== before);
  const late = gm.act(end.combatant, "end_turn", {}, { expectTurn: before });
  await assert.rejects(late, (err) => err instanceof CommandError && err.code === "stale" && err.details.turn_id === gm.turnId);
});

test("a dropped socket resumes by cursor: no event twice, none missed, a command in flight happens once", async (t) => {
  const table = await newTable(t);
  const gm = table.gm;
  const player = await table.open({ token: await table.invite("twilight") }, { backoff: 400 });
  const joined = player.cursor;
  const live = recorder(player);
  const statuses = [];
  player.on("status", (s) => statuses.push(s));
  const welcomes = [];
  player.on("welcome", (w) => welcomes.push(w));
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await untilTurnOf(gm, "twilight");
  await player.waitFor((c) => c.actionsFor("twilight").some((a) => a.action === "end_turn"));

  // the turn's end is sent, and the socket dies at once (no close frame: a network failure),
  // before its answer can come
  const ended = player.perform(player.actionsFor("twilight").find((a) => a.action === "end_turn"));
  player.socket.terminate();
  await player.waitFor((c) => c.status === "offline");
  // meanwhile the GM hides and shows the dog
  await gm.command("set_hidden", { combatant: "dog", hidden: true });
  await gm.command("set_hidden", { combatant: "dog", hidden: false });
  assert.notEqual(player.status, "live");
  const ack = await ended; // sent again with its id once the connection is back
  assert.equal(ack.type, "ack");
  assert.deepEqual(statuses.slice(-3), ["offline", "connecting", "live"]);
  assert.equal(welcomes.length, 1);
  assert.equal(player.snapshotMessage.reason, "join"); // resumed from its cursor: no new snapshot
  await player.command("ping");

  const cursors = live.map((m) => m.cursor);
  assert.equal(new Set(cursors).size, cursors.length, "an event came twice");
  const { events } = await player.history({ limit: 500 });
  const told = events.map((m) => m.cursor);
  assert.deepEqual(cursors, told.slice(told.indexOf(joined) + 1), "an event is missing");
  const kinds = live.map((m) => m.event.kind);
  assert.ok(kinds.includes("combatant_revealed"), kinds.join(" ")); // sent while it was away
  const gmLog = (await gm.history({ limit: 500 })).events;
  assert.equal(gmLog.filter((m) => m.event.kind === "turn_ended" && m.event.combatant === "twilight").length, 1);

  const fresh = await table.open({ token: player.token });
  await player.waitFor((c) => c.cursor === fresh.cursor);
  assert.deepEqual(player.state, fresh.state);
});

test("the view stays equal to a fresh snapshot after several commands", async (t) => {
  const table = await newTable(t);
  const player = await table.open({ token: await table.invite("twilight", "dash") });
  let patched = 0;
  player.on("state", (_s, m) => { if (m.type === "view") patched += 1; });
  const gm = table.gm;
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await gm.command("set_hidden", { combatant: "dog", hidden: true });
  await gm.command("set_hidden", { combatant: "dog", hidden: false });
  for (let i = 0; i < 4; i++) {
    await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
    const end = gm.legal.find((a) => a.action === "end_turn");
    const turn = gm.turnId;
    const mine = player.actionsFor(end.combatant).find((a) => a.action === "end_turn");
    if (mine) {
      const attack = player.actionsFor(end.combatant).find((a) => a.action === "attack");
      if (attack) await player.perform(attack, argsFor(attack, await player.argsSchema(attack)));
      await player.perform(mine);
    } else await gm.perform(end);
    await gm.waitFor((c) => c.turnId !== turn);
  }
  await gm.command("end_encounter", { reason: "the dogs fled" });
  await player.waitFor((c) => c.state.ended);
  await player.command("ping");
  assert.ok(patched >= 5, `only ${patched} view patches`);
  assert.equal(player.viewMismatches, 0);
  const state = structuredClone(player.state);
  const snapshot = await player.getSnapshot();
  assert.equal(snapshot.reason, "asked");
  assert.deepEqual(state, snapshot.state);
  const gmState = structuredClone(gm.state);
  assert.deepEqual(gmState, (await gm.getSnapshot()).state);
  assert.equal(state.end_reason, "the dogs fled");
});

test("a patch that does not apply to the state held brings a fresh snapshot", async (t) => {
  const { gm } = await newTable(t);
  delete gm.state.phase; // not the state the server patches any more
  delete gm.state.round;
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await gm.waitFor((c) => c.viewMismatches > 0 && c.snapshotMessage.reason === "asked");
  await gm.command("ping");
  assert.deepEqual(structuredClone(gm.state), (await gm.getSnapshot()).state);
});

test("history comes back in pages, oldest first, and the pages make the whole log", async (t) => {
  const { gm } = await newTable(t);
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await untilTurnOf(gm, "dog");
  await gm.command("ping");
  const whole = (await gm.history({ limit: 500 })).events;
  assert.ok(whole.length > 8, `${whole.length} events`);
  const pages = [];
  for await (const page of gm.historyPages({ limit: 3 })) pages.push(page);
  assert.ok(pages.length >= 3);
  assert.ok(pages.slice(0, -1).every((p) => p.events.length === 3));
  assert.equal(pages.at(-1).before, null);
  const joined = pages.reverse().flatMap((p) => p.events);
  assert.deepEqual(joined.map((m) => m.cursor), whole.map((m) => m.cursor));
  assert.equal(whole[0].event.kind, "encounter_created");
  assert.equal(whole.at(-1).cursor, gm.cursor);
});

test("a physical roll request is answered with submit_roll", async (t) => {
  const table = await newTable(t, { options: { players_roll: true } });
  const player = await table.open({ token: await table.invite("twilight") });
  const asked = [];
  player.on("roll", (e) => asked.push(e));
  await table.gm.perform(table.gm.legal.find((a) => a.action === "start_encounter"));
  await player.waitFor((c) => c.rollRequests.length > 0);
  const [roll] = player.rollRequests;
  assert.equal(roll.combatant, "twilight");
  assert.equal(roll.purpose, "initiative");
  assert.deepEqual(roll.dice, [20]);
  assert.equal(asked[0].request, roll.request);
  const schema = await player.argsSchema(roll.entry);
  const fields = { request: roll.request, faces: roll.dice.map((sides) => sides) };
  assert.ok(strictAjv().compile(schema)(fields));
  const events = recorder(player);
  await player.submitRoll(roll.request, fields.faces);
  const rolled = events.find((m) => m.event.kind === "dice_rolled" && m.event.request === roll.request);
  assert.ok(rolled, JSON.stringify(events.map((m) => m.event.kind)));
  assert.equal(rolled.event.roll.manual, true);
  assert.deepEqual(rolled.event.roll.dice.map((d) => d.face), [20]);
  await assert.rejects(player.submitRoll(roll.request, [20]), (err) => err instanceof CommandError);
  assert.equal(player.rollRequests.length, 0);
});

test("a spectator link connects from the URL, and a revoked credential stops for good", async (t) => {
  const table = await newTable(t);
  const link = (await table.gm.command("issue_spectator_link")).result;
  const spectator = await table.open({ spectate: link.token });
  assert.equal(spectator.welcome.role, "spectator");
  await spectator.waitFor((c) => c.state !== null);
  assert.equal(spectator.state.tokens, undefined);
  const events = recorder(spectator);
  await table.gm.perform(table.gm.legal.find((a) => a.action === "start_encounter"));
  await spectator.waitFor(() => events.some((m) => m.event.kind === "turn_started"));

  const statuses = [];
  spectator.on("status", (s, d) => statuses.push([s, d.code]));
  await table.gm.command("revoke_token", { token_id: link.token_id });
  await spectator.waitFor((c) => c.status === "closed").catch(() => {});
  assert.deepEqual(statuses.at(-1), ["closed", 4001]);
  await assert.rejects(spectator.command("ping"), (err) => err.code === "closed");
});

test("a token the server does not know is refused at connect, and nothing reconnects", async () => {
  const { WebSocket } = await import("ws");
  const { serverUrl } = await import("../test-support/table.mjs");
  const c = new Client({ url: serverUrl(), token: "sm1.nothing.here.atall", WebSocket });
  await assert.rejects(c.connect(), (err) => err instanceof CommandError && err.code === "unauthenticated");
  assert.equal(c.status, "closed");
});

test("a cursor the server does not take: hello again without it, and start from a fresh snapshot", async (t) => {
  const table = await newTable(t);
  const link = (await table.gm.command("issue_spectator_link")).result;
  for (const credentials of [{ token: table.gmToken }, { spectate: link.token }]) {
    const c = await table.open(credentials, { backoff: 50 });
    await c.waitFor((x) => x.state !== null);
    const snapshots = [];
    c.on("snapshot", (m) => snapshots.push(m.reason));
    c.cursor = "A".repeat(22); // no cursor of this encounter's
    c.socket.terminate();
    await c.waitFor(() => snapshots.length > 0);
    assert.deepEqual(snapshots, ["join"], JSON.stringify(credentials));
    assert.equal(c.status, "live");
    assert.notEqual(c.cursor, "A".repeat(22));
  }
});

test("a replay plays the encounter back and only watches", async (t) => {
  const table = await newTable(t);
  await table.gm.perform(table.gm.legal.find((a) => a.action === "start_encounter"));
  for (let i = 0; i < 4; i++) {
    await table.gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
    await table.gm.perform(table.gm.legal.find((a) => a.action === "end_turn"));
  }
  const live = (await table.gm.history({ limit: 500 })).events;
  const replay = new Client({ url: table.url, token: table.gmToken, WebSocket, replay: { speed: 1000 } });
  t.after(() => replay.close());
  const events = [];
  replay.on("event", (m) => events.push(m));
  const ended = new Promise((resolve) => replay.on("replay_ended", resolve));
  await replay.connect();
  const done = await ended;
  assert.equal(replay.snapshotMessage.reason, "replay");
  assert.equal(done.events, events.length);
  // the events as the GM received them live, from the scene's start, with their words
  assert.deepEqual(events.map((m) => m.event), live.slice(live.length - events.length).map((m) => m.event));
  assert.ok(events.every((m) => m.summary && m.summary.text));
  assert.deepEqual(replay.state, table.gm.state);
  await assert.rejects(replay.command("get_legal_actions"), (e) => e.code === "forbidden");
});

test("a campaign link follows its character into each encounter the GM begins, by itself", async (t) => {
  const url = serverUrl();
  const created = await Client.createCampaign({ url, WebSocket }, { name: "Package road" });
  assert.ok(created.recovery_secret && created.gm_token.startsWith("smc1."));
  const opened = [];
  t.after(() => { for (const c of opened) c.close(); });
  const open = async (token) => {
    const c = new Client({ url, WebSocket, token });
    opened.push(c);
    await c.connect();
    return c;
  };
  const gm = await open(created.gm_token);
  assert.equal(gm.welcome.campaign, created.campaign);
  await gm.waitFor((c) => c.campaign !== null);
  const added = await gm.command("add_character", { character: { name: "Ace", id: "ace", kind: "pc" } });
  const player = await open(added.result.token);
  await player.waitFor((c) => c.campaign !== null && c.campaign.state.mine[0] === "ace");
  assert.equal(player.welcome.encounter, null);
  const moves = [];
  player.on("moved", (m) => moves.push(m.encounter));
  for (const name of ["The ambush", "The bridge"]) {
    const begun = await gm.command("begin_encounter", { name, characters: ["ace"] });
    await player.waitFor((c) => c.welcome.encounter === begun.result.encounter && c.state !== null);
    assert.equal(player.state.name, name);
    assert.deepEqual(player.welcome.combatants, ["ace"]);
    const encounterGm = await open(begun.result.gm_token);
    await encounterGm.command("end_encounter");
  }
  assert.equal(moves.length, 2);
});
