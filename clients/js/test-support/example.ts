// A custom VTT's use of the package, type-checked with tsc --noEmit against types/ (the
// package's declarations and the message types generated from the published schemas).
import { Client, CommandError, DEFAULT_FEATURES, applyPatch } from "stablemaster-client";
import type { ClientMessages, LegalAction, ServerMessages, SnapshotState, WebSocketClass } from "stablemaster-client";

declare const WebSocketImpl: WebSocketClass;

export async function playATurn(url: string, token: string): Promise<string[]> {
  const client = new Client({ url, token, WebSocket: WebSocketImpl, features: [...DEFAULT_FEATURES, "summaries"] });
  const welcome: ServerMessages.Welcome = await client.connect();
  const lines: string[] = [`${welcome.role} of ${welcome.encounter}`];
  client.on("event", (m) => { lines.push(m.event.kind + (m.summary ? `: ${String(m.summary)}` : "")); });
  client.on("state", (state: SnapshotState) => { lines.push(`round ${state.round}`); });
  client.on("status", (status, detail) => { if (status === "offline") lines.push(`retry in ${detail.retryIn} ms`); });
  await client.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
  const end = client.legal.find((a: LegalAction) => a.action === "end_turn")!;
  const schema = await client.argsSchema(end);
  lines.push(String(schema.title));
  for (const roll of client.rollRequests) await client.submitRoll(roll.request, (roll.dice ?? [20]).map(() => 1));
  try {
    const ack: ServerMessages.Ack = await client.perform(end, {});
    lines.push(String(ack.cursor));
  } catch (err) {
    if (err instanceof CommandError && err.code === "stale") lines.push(`the turn is now ${err.details.turn_id}`);
    else throw err;
  }
  for await (const page of client.historyPages({ limit: 50 })) lines.push(...page.events.map((m) => m.event.kind));
  const hello: ClientMessages.Hello = { type: "hello", versions: [1], token };
  lines.push(JSON.stringify(applyPatch({ a: 1 }, [{ op: "replace", path: "/a", value: 2 }])), hello.type);
  client.close();
  return lines;
}
