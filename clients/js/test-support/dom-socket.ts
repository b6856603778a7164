// A browser page (lib DOM): the global WebSocket, or `window.WebSocket`, given to the client as it
// is (no cast), under --strict. Type-checked with tsc -p tsconfig.dom.json.
import { Client, aimTargets, pathTo } from "stablemaster-client";

export async function page(url: string, token: string, log: HTMLElement): Promise<void> {
  const client = new Client({ url, token, WebSocket });
  const other = new Client({ url, token, WebSocket: window.WebSocket });
  other.close();
  await client.connect();
  client.on("event", (m) => { log.append(m.summary?.text ?? m.event.kind, document.createElement("br")); });
  const move = client.legal.find((a) => a.action === "move");
  if (move?.combatant) {
    const path = pathTo(await client.getReach(move.combatant, { action: "run" }), [3, 4]);
    if (path) await client.perform(move, { path });
    for (const t of aimTargets(await client.getAim(move.combatant, "attack")).refused) log.title += t.why;
  }
  client.close();
}
