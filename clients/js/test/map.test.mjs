// get_reach and get_aim through the package (rulings R106, R107): the path `pathTo` reads off
// the reach is one `act` takes, and `aimTargets` tells the targets in reach from those the
// attack would be refused at, with the very sentence of the refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CommandError, aimTargets, pathTo, reachOf } from "../src/index.js";
import { newTable } from "../test-support/table.mjs";

test("a path for a square from get_reach, and the targets with their reasons from get_aim", async (t) => {
  const table = await newTable(t, { combatants: [
    { name: "Rainbow Dash", id: "dash", kind: "pc", initiative: 50 },
    { name: "Twilight Sparkle", id: "twilight", kind: "pc", initiative: 0 },
    { name: "Diamond Dog", id: "dog", kind: "npc", initiative: -50 },
  ] });
  const gm = table.gm;
  await gm.command("set_map", { map: { width: 10, height: 4, blocked: [[5, 0], [5, 1], [5, 2], [5, 3]] } });
  for (const [combatant, at] of [["dash", [0, 0]], ["twilight", [1, 0]], ["dog", [9, 3]]]) {
    await gm.command("place_combatant", { combatant, at });
  }
  const player = await table.open({ token: await table.invite("dash") });
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await player.waitFor((c) => c.actionsFor("dash").some((a) => a.action === "move"));

  const reach = await player.getReach("dash");
  assert.deepEqual([reach.combatant, reach.action, reach.from], ["dash", "move", [0, 0]]);
  assert.equal(pathTo(reach, [5, 0]), null); // a blocked square
  assert.equal(reachOf(reach, [9, 3]), null); // beyond the wall
  const square = reach.squares.find((s) => s.at[0] === 0 && s.at[1] === 2);
  assert.ok(square, JSON.stringify(reach.squares.map((s) => s.at)));
  assert.deepEqual(reachOf(reach, [0, 2]), square);
  const path = pathTo(reach, [0, 2]);
  assert.deepEqual(path, square.path);
  assert.deepEqual(path.at(-1), [0, 2]);

  const attack = player.actionsFor("dash").find((a) => a.action === "attack");
  const weapon = attack.options?.weapon?.[0];
  const aim = await player.getAim("dash", "attack", weapon ? { weapon } : {});
  assert.deepEqual(aim.targets.map((a) => a.target), attack.targets);
  const { ok, refused, why } = aimTargets(aim);
  assert.deepEqual(ok.map((a) => a.target), ["twilight"]);
  assert.equal(ok[0].cover, "none");
  assert.deepEqual(refused.map((a) => a.target), ["dog"]);
  assert.match(why("dog"), /line of effect/);
  assert.equal(why("twilight"), null);
  await assert.rejects(player.act("dash", "attack", { target: "dog", ...(weapon ? { weapon } : {}) }),
    (err) => err instanceof CommandError && err.reply.message === why("dog"));

  await player.perform(player.actionsFor("dash").find((a) => a.action === "move"), { path });
  const moved = (await gm.history({ limit: 50 })).events.map((m) => m.event).filter((e) => e.kind === "combatant_moved");
  assert.deepEqual(moved.map((e) => [e.combatant, e.path]), [["dash", path]]);
});
