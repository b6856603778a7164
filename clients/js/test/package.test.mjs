// The package as it ships: what `npm pack` puts in the tarball, the message types generated
// from the published schemas, the declarations type-checked with tsc, and the README's
// example of a turn run against the real server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { Client } from "../src/index.js";
import { GENERATED, TYPES, generate } from "../scripts/generate-types.mjs";
import { newTable } from "../test-support/table.mjs";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

test("npm pack ships src, types, the README and package.json, nothing else", async (t) => {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root });
  const [pack] = JSON.parse(stdout);
  const files = pack.files.map((f) => f.path).sort();
  const unexpected = files.filter((f) => !/^(src\/[a-z-]+\.js|types\/[a-z-]+\.d\.ts|README\.md|package\.json)$/.test(f));
  assert.deepEqual(unexpected, []);
  for (const f of ["package.json", "README.md", "src/index.js", "src/client.js", "types/index.d.ts", ...Object.keys(GENERATED).map((g) => `types/${g}`)]) {
    assert.ok(files.includes(f), `${f} is not in the tarball`);
  }
  const src = fs.readdirSync(path.join(root, "src")).map((f) => `src/${f}`);
  assert.deepEqual(files.filter((f) => f.startsWith("src/")), src.sort());
  t.diagnostic(`tarball ${pack.filename}: ${pack.size} bytes packed, ${pack.unpackedSize} unpacked, ${files.length} files`);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  assert.equal(manifest.private, undefined);
  assert.equal(manifest.license, "MIT");
  assert.deepEqual(manifest.dependencies ?? {}, {}); // no runtime dependency
});

test("the message types shipped are what the published schemas make now", async () => {
  const fresh = await generate();
  for (const [file, text] of Object.entries(fresh)) {
    const shipped = fs.readFileSync(path.join(TYPES, file), "utf8");
    assert.ok(shipped === text, `types/${file} is not what the schemas make: run \`npm run types\` in clients/js`);
    assert.match(text, /export interface (Welcome|Act)\b/);
  }
});

const tsc = path.join(root, "node_modules", ".bin", "tsc");

/** tsc's output (empty: it type-checks), with `args`. */
async function typeCheck(args) {
  const { stdout } = await run(tsc, args, { cwd: root }).catch((err) => {
    throw new Error(`tsc ${args.join(" ")}: ${err.stdout}${err.stderr}`);
  });
  return stdout;
}

test("the declarations and a TypeScript example type-check (tsc --noEmit)", async () => {
  assert.equal(await typeCheck(["-p", "test-support/tsconfig.json"]), "");
});

test("tsc --strict takes ws's WebSocket (@types/ws) and the browser's (lib DOM) with no cast", async () => {
  for (const [config, file] of [["tsconfig.ws.json", "ws-socket.ts"], ["tsconfig.dom.json", "dom-socket.ts"]]) {
    const options = JSON.parse(fs.readFileSync(path.join(root, "test-support", config), "utf8"));
    assert.equal(options.compilerOptions.strict, true, config);
    assert.deepEqual(options.files, [file]);
    const source = fs.readFileSync(path.join(root, "test-support", file), "utf8");
    assert.doesNotMatch(source, /\bas (any|unknown|WebSocketClass)\b|<any>|@ts-/, `${file} casts`);
    assert.match(source, /new Client\(\{ url, token, WebSocket \}\)/, file);
    assert.equal(await typeCheck(["-p", `test-support/${config}`]), "", config);
  }
});

/** The README's example of a turn, as written. */
function readmeExample() {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const match = readme.match(/<!-- example: play a turn -->\n```js\n([\s\S]*?)```/);
  assert.ok(match, "no example in the README");
  return match[1];
}

test("the README's example type-checks as written (tsc --strict, @types/ws)", async () => {
  const file = path.join(root, "test-support", `.readme-example-${process.pid}.ts`);
  fs.writeFileSync(file, readmeExample());
  try {
    assert.equal(await typeCheck(["--strict", "--noEmit", "--target", "es2022", "--module", "nodenext",
      "--moduleResolution", "nodenext", "--lib", "es2022", "--types", "node", "--skipLibCheck", "false",
      path.relative(root, file)]), "");
  } finally {
    fs.rmSync(file, { force: true });
  }
});

/** Runs the README's example with `token` on `table`'s server; its output. */
async function runReadmeExample(t, table, token) {
  const code = readmeExample();
  const lines = code.split("\n").filter((l) => l.trim() && !l.trim().startsWith("//"));
  t.diagnostic(`the README's example: ${lines.length} lines`);
  const file = path.join(root, "test-support", `.readme-example-${process.pid}.mjs`);
  fs.writeFileSync(file, code);
  try {
    const { stdout } = await run("node", [file], { cwd: root, timeout: 60000, env: { ...process.env, STABLEMASTER_URL: table.url, STABLEMASTER_TOKEN: token } });
    return stdout;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

test("the README's example plays a turn on the real server", async (t) => {
  const table = await newTable(t);
  await table.gm.perform(table.gm.legal.find((a) => a.action === "start_encounter"));
  await table.gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
  const acting = table.gm.legal.find((a) => a.action === "end_turn").combatant;
  const token = await table.invite(acting);
  const stdout = await runReadmeExample(t, table, token);
  // its log lines are the server's words (the summaries feature, asked for by default)
  assert.match(stdout, / attacks /);
  assert.match(stdout, / ends the turn\./);
  assert.match(stdout, /the next turn has begun/);
  const log = (await table.gm.history({ limit: 500 })).events.map((m) => m.event);
  assert.ok(log.some((e) => e.kind === "attack_resolved" && e.attacker === acting));
  assert.ok(log.some((e) => e.kind === "turn_ended" && e.combatant === acting));
});

test("the README's example ends its turn before a hidden combatant's and does not wait for the held ack", async (t) => {
  const table = await newTable(t, { combatants: [
    { name: "Rainbow Dash", id: "dash", kind: "pc", initiative: 50 },
    { name: "Diamond Dog", id: "dog", kind: "npc", initiative: 0 },
    { name: "Twilight Sparkle", id: "twilight", kind: "pc", initiative: -50 },
  ] });
  const gm = table.gm;
  await gm.command("set_hidden", { combatant: "dog", hidden: true });
  await gm.perform(gm.legal.find((a) => a.action === "start_encounter"));
  await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn"));
  assert.equal(gm.legal.find((a) => a.action === "end_turn").combatant, "dash");
  const stdout = await runReadmeExample(t, table, await table.invite("dash"));
  // the turn ended (the GM sees it), the hidden turn runs, and the example went on without the ack
  assert.match(stdout, /a hidden combatant's/);
  assert.match(stdout, /end_turn: closed/);
  assert.doesNotMatch(stdout, /the next turn has begun|ends the turn/);
  let log = (await gm.history({ limit: 500 })).events.map((m) => m.event);
  assert.ok(log.some((e) => e.kind === "turn_ended" && e.combatant === "dash"));
  await gm.waitFor((c) => c.legal.some((a) => a.action === "end_turn" && a.combatant === "dog"));
  await gm.perform(gm.legal.find((a) => a.action === "end_turn"));
  log = (await gm.history({ limit: 500 })).events.map((m) => m.event);
  assert.ok(log.some((e) => e.kind === "turn_started" && e.combatant === "twilight"));
});

test("a client takes the WebSocket it is given, else the global one, and says so when there is none", () => {
  assert.ok(new Client({ url: "ws://127.0.0.1:1/ws", WebSocket }));
  if (globalThis.WebSocket) assert.ok(new Client({ url: "ws://127.0.0.1:1/ws" }));
  else assert.throws(() => new Client({ url: "ws://127.0.0.1:1/ws" }), /no WebSocket: pass one/);
});
