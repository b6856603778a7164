// The bridge against a real server, Foundry's documents stood in for by plain objects: a
// hidden combatant has no Combatant document until it is revealed, the tracker's controls
// become commands and a refused one leaves Foundry at the server's state with the reason
// shown, round and turn follow the server through a death, summaries reach the chat, the
// GM's dice are Foundry's, the server's verifiable dice are told in the chat, and a replay plays
// the encounter back in the tracker and the chat.
import { test } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { click, mirrored, newScene, pastHiddenTurns, SEEN, serverUrl, StandIn } from "../test-support/stand-in.mjs";
import { Bridge } from "../scripts/bridge.js";
import { MODULE_ID } from "../scripts/mirror.js";
import { countdown } from "../scripts/timer.js";

test("a hidden combatant has no Foundry Combatant, and a hidden token, until it is revealed; then it takes its place", async (t) => {
  const { gm, bridge, foundry } = await newScene(t);
  await mirrored(bridge);
  assert.deepEqual(foundry.combat().combatants.map((c) => c.flags[MODULE_ID].combatant).sort(), ["dash", "dog", "twilight"]);
  assert.equal(foundry.combat().round, 0);
  await click(foundry, bridge, { round: 1, turn: 0 }); // Begin Combat
  await pastHiddenTurns(gm);
  const view = await mirrored(bridge, (v) => v.round >= 1 && v.current !== null);
  assert.ok(gm.state.order.includes("lurker"), "the server rolled the lurker's initiative");
  assert.deepEqual(foundry.turnIds(), view.order);
  assert.equal(foundry.shownCurrent(), view.current);
  assert.ok(!foundry.created.some((doc) => doc.flags[MODULE_ID].combatant === "lurker" || doc.tokenId === "tLurk" || doc.name === "Lurking Dog"),
    "a Combatant document was made for the hidden combatant");
  const lurkerToken = foundry.sceneTokens.find((x) => x.id === "tLurk");
  assert.equal(lurkerToken.hidden, true);
  assert.equal(lurkerToken.flags[MODULE_ID], undefined, "nothing of the hidden combatant is written on its token");
  assert.ok(!foundry.chats.some((m) => m.content.includes("Lurking Dog")), "the chat told of the hidden combatant");

  await gm.command("set_hidden", { combatant: "lurker", hidden: false });
  const after = await mirrored(bridge, (v) => v.combatants.some((c) => c.id === "lurker") && v.order.includes("lurker"));
  assert.deepEqual(foundry.turnIds(), after.order);
  assert.deepEqual(after.order, gm.state.order);
  assert.equal(foundry.shownCurrent(), after.current);
  const doc = foundry.combat().combatants.find((c) => c.flags[MODULE_ID].combatant === "lurker");
  assert.deepEqual([doc.actorId, doc.tokenId, doc.name], ["aLurk", "tLurk", "Lurking Dog"]);
  assert.equal(lurkerToken.hidden, false);
  assert.equal(lurkerToken.flags[MODULE_ID].overlay.fatigue, null, "an NPC's fatigue points stay behind the GM's screen");
  const twilight = foundry.sceneTokens.find((x) => x.id === "tTwi").flags[MODULE_ID].overlay;
  assert.equal(twilight.fatigue, 10);
  assert.equal(twilight.label, "FP 10/10");
});

test("a Foundry \"next turn\" for a turn that is over is refused: Foundry stays at the server's state, the reason shown", async (t) => {
  const { gm, bridge, foundry } = await newScene(t, { combatants: SEEN });
  await mirrored(bridge);
  await click(foundry, bridge, { round: 1, turn: 0 });
  await mirrored(bridge, (v) => v.current !== null && bridge.client.turnId !== null);
  const shownBefore = foundry.shownCurrent();
  assert.ok(shownBefore);

  // Foundry lags: the GM's console ends the turn on the server before Foundry shows it.
  const release = foundry.hold();
  await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn" && a.combatant === shownBefore));
  await gm.act(shownBefore, "end_turn", {}, { expectTurn: null });
  await bridge.client.waitFor((c) => c.state.current !== shownBefore);
  const serverCurrent = gm.state.current;
  const turn = foundry.combat().turn;
  const clicked = click(foundry, bridge, { turn: turn + 1 }); // Next Turn, on the turn Foundry still shows
  await new Promise((resolve) => { const tick = () => (foundry.notifications.length ? resolve() : setTimeout(tick, 10)); tick(); });
  release();
  await clicked;
  const view = await mirrored(bridge, (v) => v.current === serverCurrent);
  assert.equal(foundry.notifications.length, 1, JSON.stringify(foundry.notifications));
  assert.equal(foundry.notifications[0].level, "warn");
  assert.match(foundry.notifications[0].text, /^Stablemaster: the server refused: \S/);
  assert.equal(bridge.refusals[0].code, "stale", "the click was not refused as meant for a turn that is over");
  assert.equal(foundry.notifications[0].text, `Stablemaster: ${bridge.refusals[0].text}`);
  assert.equal(gm.state.current, serverCurrent, "the refused click changed the server's turn");
  assert.equal(foundry.shownCurrent(), serverCurrent);
  assert.equal(foundry.combat().round, Math.max(1, view.round));
  assert.equal(foundry.combat().flags[MODULE_ID].turnId, bridge.client.turnId);
  assert.equal(foundry.updates.filter((u) => !u.allowed).length, 2, "the start and the next turn were held back");
  assert.ok(foundry.updates.filter((u) => u.allowed).every((u) => u.options.stablemaster === true), "an unmarked update went through");

  // Going back is not the server's: refused at the table, nothing sent.
  const sent = bridge.client.unanswered;
  await click(foundry, bridge, { round: foundry.combat().round - 1, turn: 0 });
  assert.match(foundry.notifications.at(-1).text, /no going back/);
  assert.equal(bridge.refusals.at(-1).code, null);
  assert.equal(bridge.client.unanswered, sent);
  assert.equal(foundry.shownCurrent(), serverCurrent);
});

test("round and turn follow the server over several turns, a death takes its combatant out of the turns", async (t) => {
  const { gm, bridge, foundry } = await newScene(t, { combatants: SEEN });
  await mirrored(bridge);
  await click(foundry, bridge, { round: 1, turn: 0 });
  const seen = [];
  for (let i = 0; i < 7; i++) {
    const view = await mirrored(bridge, (v) => v.current !== null && !!bridge.client.turnId);
    assert.deepEqual(foundry.turnIds().slice(0, view.order.length), view.order);
    assert.equal(foundry.shownCurrent(), view.current);
    assert.equal(foundry.combat().round, Math.max(1, view.round));
    seen.push([view.round, view.current]);
    if (i === 2) {
      const victim = view.order.find((id) => id !== view.current && id !== "twilight");
      await gm.command("adjust_combatant", { combatant: victim, condition: "dead", reason: "falls off the cliff" });
      const dead = await mirrored(bridge, (v) => !v.order.includes(victim));
      const doc = foundry.combat().combatants.find((c) => c.flags[MODULE_ID].combatant === victim);
      assert.equal(doc.defeated, true);
      assert.equal(doc.initiative, null);
      assert.deepEqual(foundry.turnIds().slice(0, dead.order.length), dead.order);
      assert.equal(foundry.turnIds().at(-1), victim);
      assert.equal(foundry.shownCurrent(), dead.current);
      const token = foundry.sceneTokens.find((x) => x.id === doc.tokenId);
      assert.equal(token.flags[MODULE_ID].overlay.dead, true);
      assert.ok(foundry.statusesOf(token.id).includes("dead"));
    }
    await click(foundry, bridge, { turn: foundry.combat().turn + 1 }); // Next Turn
    const [round, current] = seen.at(-1); // (the state held changes in place)
    await mirrored(bridge, (v) => v.current !== current || v.round !== round);
  }
  assert.ok(new Set(seen.map(([r]) => r)).size >= 2, `only one round in ${JSON.stringify(seen)}`);
  assert.equal(foundry.notifications.length, 0, JSON.stringify(foundry.notifications));

  await gm.command("end_encounter", { reason: "done" });
  await mirrored(bridge, (v) => v.ended);
  assert.equal(foundry.combat(), null, "the ended encounter's combat was not deleted");
});

test("the server's summaries become chat messages, as a spectator reads them", async (t) => {
  const { gm, bridge, foundry } = await newScene(t);
  await mirrored(bridge);
  await click(foundry, bridge, { round: 1, turn: 0 });
  await pastHiddenTurns(gm);
  await mirrored(bridge, (v) => v.current !== null);
  const deadline = Date.now() + 10000;
  while (!foundry.chats.some((m) => /Round 1 begins/.test(m.content)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // (the lines of the dice, which come from the state, are not summaries of events)
  const summaries = foundry.chats.filter((m) => m.flags[MODULE_ID].cursor !== null);
  assert.ok(summaries.length >= 2, JSON.stringify(foundry.chats));
  for (const m of summaries) {
    assert.equal(m.speaker.alias, "Stablemaster");
    assert.match(m.content, /^<p class="stablemaster-summary">[^<]+<\/p>$/);
    assert.ok(m.flags[MODULE_ID].kind);
  }
  assert.ok(foundry.chats.some((m) => /Round 1 begins/.test(m.content)));
  assert.ok(!foundry.chats.some((m) => m.content.includes("Lurking Dog")));
  const cursors = summaries.map((m) => m.flags[MODULE_ID].cursor);
  assert.equal(new Set(cursors).size, cursors.length, "a summary came twice");
});

test("what the GM takes back stays in the chat, struck through, as the server's history marks it", async (t) => {
  const { gm, bridge, foundry } = await newScene(t, { combatants: SEEN });
  await mirrored(bridge);
  const waitChat = async (test) => {
    const deadline = Date.now() + 10000;
    while (!foundry.chats.some(test) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return foundry.chats.find(test);
  };
  await gm.command("adjust_combatant", { combatant: "twilight", prone: true, reason: "slips on the ice" });
  const said = await waitChat((m) => m.content.includes("slips on the ice"));
  assert.ok(said, JSON.stringify(foundry.chats));
  assert.ok(!said.content.includes("<s>"));
  await gm.command("undo", { reason: "she did not" });
  await waitChat((m) => m.flags[MODULE_ID].kind === "commands_undone");
  const deadline = Date.now() + 10000;
  while (!said.content.includes("<s>") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(said.content, /^<p class="stablemaster-summary taken-back"><s>[^<]+<\/s><\/p>$/);
  const undone = foundry.chats.find((m) => m.flags[MODULE_ID].kind === "commands_undone");
  assert.ok(!undone.content.includes("<s>"), "the undo itself is not taken back");
  await mirrored(bridge, (v) => v.combatants.find((c) => c.id === "twilight")?.vitals.prone === false);
});

test("the server's turn timer is in the combat's flags on Foundry's clock, its countdown shown", async (t) => {
  const { bridge, foundry } = await newScene(t, { combatants: SEEN, options: { turn_seconds: 90, turn_warning_seconds: 10 } });
  await mirrored(bridge);
  await click(foundry, bridge, { round: 1, turn: 0 });
  const view = await mirrored(bridge, (v) => v.timer !== null && v.current !== null);
  const deadline = Date.now() + 10000;
  while (!foundry.combat()?.flags[MODULE_ID].timer && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const flags = foundry.combat().flags[MODULE_ID].timer;
  assert.equal(flags.combatant, view.timer.combatant);
  // Foundry's clock is 5 s ahead of this machine's (the stand-in's): so is the deadline
  assert.ok(Math.abs(flags.deadline - (view.timer.deadline + 5000)) < 1500, JSON.stringify([flags, view.timer]));
  assert.equal(flags.deadline - flags.warnAt, view.timer.deadline - view.timer.warn_at);
  const shown = countdown(flags, foundry.now());
  assert.match(shown.text, /^1:(2\d|30) left$/);
  assert.equal(shown.warning, false);
});

test("the GM's roll requests are answered with Foundry's dice (the fulfillment path)", async (t) => {
  const { bridge, foundry } = await newScene(t, { combatants: SEEN, options: { manual_rolls: true } });
  foundry.fulfil = (faces) => faces; // the physical die shows its highest face
  await mirrored(bridge);
  const events = [];
  bridge.client.on("event", (m) => events.push(m.event));
  await click(foundry, bridge, { round: 1, turn: 0 });
  await mirrored(bridge, (v) => v.current !== null && v.round >= 1);
  const rolled = events.filter((e) => e.kind === "dice_rolled" && e.roll.manual);
  assert.deepEqual(foundry.rolls, ["1d20", "1d20"]);
  assert.equal(rolled.length, 2, JSON.stringify(events.map((e) => e.kind)));
  assert.ok(rolled.every((e) => e.roll.dice.every((d) => d.face === 20)));
  const initiative = bridge.client.state.initiative.filter((e) => ["dog", "lurker"].includes(e.combatant));
  assert.deepEqual(initiative.map((e) => e.total - e.modifier), [20, 20]);
  assert.equal(foundry.notifications.length, 0, JSON.stringify(foundry.notifications));
});

test("combatants are made from the scene's tokens by the mapping", async (t) => {
  const { bridge, foundry } = await newScene(t, { chat: false });
  await mirrored(bridge);
  const ids = await bridge.addTokens([
    { actor: { id: "aTim", name: "Timberwolf", hasPlayerOwner: false, system: { attributes: { init: { mod: 4 }, hp: { max: 14 } } } }, token: { id: "tTim", name: "Timberwolf", hidden: false } },
    { actor: { id: "aShade", name: "Shade", system: {} }, token: { id: "tShade", name: "Shade", hidden: true } },
  ]);
  assert.equal(ids.length, 2);
  await mirrored(bridge, (v, gm) => gm.combatants.length === 6 && v.combatants.length === 4);
  const wolf = bridge.client.state.combatants.find((c) => c.id === ids[0]);
  assert.deepEqual(wolf.external_ids, { foundry_actor: "aTim", foundry_token: "tTim" });
  assert.equal(wolf.initiative_mod, 4);
  assert.equal(wolf.stats.fatigue_points, 14);
  assert.equal(wolf.kind, "npc");
  assert.equal(bridge.client.state.combatants.find((c) => c.id === ids[1]).hidden, true);
  assert.ok(foundry.combat().combatants.some((c) => c.tokenId === "tTim"));
  assert.ok(!foundry.created.some((c) => c.tokenId === "tShade"));
});

/** Until a chat message passes `test`, or 10 s. */
async function chatted(foundry, test) {
  const deadline = Date.now() + 10000;
  while (!foundry.chats.some(test) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return foundry.chats.find(test);
}

test("the server's dice commitment is told in the chat, though the bridge joined after it, and at the end the secret and how to check", async (t) => {
  const { gm, bridge, foundry } = await newScene(t, { combatants: SEEN });
  await mirrored(bridge);
  const commitment = gm.state.dice.commitment;
  assert.match(commitment, /^[0-9a-f]{64}$/);
  const committed = await chatted(foundry, (m) => m.flags[MODULE_ID].kind === "dice_committed");
  assert.ok(committed, JSON.stringify(foundry.chats));
  assert.ok(committed.content.includes(commitment));
  await click(foundry, bridge, { round: 1, turn: 0 });
  await mirrored(bridge, (v) => v.current !== null);
  await gm.command("end_encounter", { reason: "done" });
  const revealed = await chatted(foundry, (m) => m.flags[MODULE_ID].kind === "dice_revealed");
  assert.ok(revealed, JSON.stringify(foundry.chats));
  assert.match(gm.state.dice.secret, /^[0-9a-f]{64}$/);
  assert.ok(revealed.content.includes(gm.state.dice.secret));
  assert.ok(revealed.content.includes(`python -m clients.dice_check ${bridge.client.url} ${bridge.publicToken}`), revealed.content);
  await bridge.settled();
  assert.deepEqual(foundry.chats.filter((m) => m.content.includes("dice")).map((m) => m.flags[MODULE_ID].kind),
    ["dice_committed", "dice_revealed"], "a line of the dice came twice");
});

test("a replay: the combat tracker and the chat play the encounter back, and its controls send nothing", async (t) => {
  const { gm, bridge, foundry, integration } = await newScene(t, { combatants: SEEN });
  await mirrored(bridge);
  await click(foundry, bridge, { round: 1, turn: 0 });
  await gm.command("adjust_combatant", { combatant: "twilight", prone: true, reason: "slips on the ice" });
  while ((gm.state.round ?? 0) < 2) { // the GM's console ends turns into round 2
    await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
    const [round, current] = [gm.state.round, gm.state.current];
    await gm.act(current, "end_turn", {}, { expectTurn: null });
    await gm.waitFor((c) => c.state.round !== round || c.state.current !== current);
  }
  const live = await mirrored(bridge, (v) => v.round >= 2 && v.current !== null);
  await chatted(foundry, (m) => /Round 2 begins/.test(m.content));
  const said = foundry.chats.filter((m) => m.flags[MODULE_ID].cursor !== null).map((m) => m.content);

  // the same scene: its tokens and their status effects are the live encounter's
  const shown = new StandIn(foundry.sceneTokens);
  shown.statuses = foundry.statuses;
  const scene = JSON.stringify([foundry.sceneTokens, [...foundry.statuses].map(([k, v]) => [k, [...v]])]);
  const applied = [];
  const apply = shown.apply.bind(shown);
  shown.apply = async (ops, flags) => { applied.push(ops); await apply(ops, flags); };
  const replay = new Bridge({ url: serverUrl(), token: integration, table: shown, WebSocket, publicToken: bridge.publicToken, replay: { speed: 1000 } });
  t.after(() => replay.stop());
  await replay.start();
  assert.equal(replay.view.replay.speed, 1000);
  const deadline = Date.now() + 20000;
  while (!replay.replayed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(replay.replayed, "the replay never ended");
  await replay.settled();
  // the tracker where the encounter is, the chat as the live one read it
  assert.deepEqual(shown.turnIds(), foundry.turnIds());
  assert.equal(shown.shownCurrent(), live.current);
  assert.equal(shown.combat().round, live.round);
  const replayed = shown.chats.filter((m) => m.flags[MODULE_ID].cursor !== null).map((m) => m.content);
  assert.ok(replayed.some((c) => c.includes("slips on the ice")));
  assert.ok(said.every((c) => replayed.includes(c)), JSON.stringify({ said, replayed }));
  assert.ok(replayed.indexOf(said.find((c) => /Round 1 begins/.test(c))) < replayed.indexOf(said.find((c) => /Round 2 begins/.test(c))));
  assert.ok(shown.chats.some((m) => m.flags[MODULE_ID].kind === "dice_committed"));
  assert.equal(shown.notifications.at(-1).text, "Stablemaster: the replay is over");
  // in a combat of its own, the scene's tokens left as the live encounter has them
  assert.equal(shown.combat().flags[MODULE_ID].replay, true);
  assert.equal(foundry.combat().flags[MODULE_ID].replay, undefined);
  assert.ok(applied.length > 0 && applied.every((ops) => !ops.updateTokens.length && !ops.statuses.length));
  assert.equal(JSON.stringify([foundry.sceneTokens, [...foundry.statuses].map(([k, v]) => [k, [...v]])]), scene);
  // a replay only watches
  const current = gm.state.current;
  const sent = replay.client.unanswered;
  await click(shown, replay, { turn: shown.combat().turn + 1 });
  assert.match(shown.notifications.at(-1).text, /a replay only watches/);
  assert.equal(replay.client.unanswered, sent);
  assert.equal(gm.state.current, current);
  assert.equal(shown.shownCurrent(), live.current);
});
