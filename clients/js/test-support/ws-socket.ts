// Node with the `ws` package: its WebSocket class, typed by @types/ws, given to the client as it
// is (no cast), under --strict. Type-checked with tsc -p tsconfig.ws.json.
import WebSocket from "ws";
import { Client, aimTargets, pathTo, reachOf } from "stablemaster-client";
import type { Aim, AimRefused, Reach, ReachSquare, Square } from "stablemaster-client";

export async function moveThenAttack(url: string, token: string, to: Square): Promise<string[]> {
  const client = new Client({ url, token, WebSocket });
  await client.connect();
  const said: string[] = [];
  client.on("event", (m) => { said.push(m.summary?.text ?? m.event.kind); });
  await client.waitFor((c) => c.legal.some((a) => a.action === "move"));
  const move = client.legal.find((a) => a.action === "move");
  if (!move || move.combatant == null) throw new Error("no move");
  const reach: Reach = await client.getReach(move.combatant);
  const square: ReachSquare | null = reachOf(reach, to);
  const path: Square[] | null = pathTo(reach, to);
  if (square && path) await client.perform(move, { path });
  const aim: Aim = await client.getAim(move.combatant, "attack");
  const { ok, refused, why } = aimTargets(aim);
  for (const t of ok) said.push(`${t.target}: ${t.distance ?? "melee"} ${t.cover ?? ""} ${t.into_melee ? "into melee" : ""}`);
  const first: AimRefused | undefined = refused[0];
  if (first) said.push(`${first.target}: ${first.why} / ${why(first.target) ?? ""}`);
  const socket = client.socket;
  if (socket) said.push(`readyState ${socket.readyState}`);
  client.close();
  return said;
}

/** The other ways of giving it: in createEncounter, and a subclass of ws's. */
export async function create(url: string): Promise<string> {
  class Logged extends WebSocket {
    constructor(address: string) { super(address); this.on("open", () => console.log("open")); }
  }
  const { gm_token } = await Client.createEncounter({ url, WebSocket }, { name: "From ws" });
  new Client({ url, token: gm_token, WebSocket: Logged }).close();
  return gm_token;
}
