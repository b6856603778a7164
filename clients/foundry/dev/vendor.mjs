// Copies the JavaScript package's modules (clients/js/src) and declarations (clients/js/types)
// into scripts/vendor/stablemaster-client, so that the module's folder installs on its own.
// The module's tests fail while the copy differs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const target = path.join(root, "scripts/vendor/stablemaster-client");
fs.rmSync(target, { recursive: true, force: true });
fs.mkdirSync(target, { recursive: true });
for (const [dir, ext] of [["src", ".js"], ["types", ".d.ts"]]) {
  const from = path.resolve(root, "../js", dir);
  for (const name of fs.readdirSync(from).filter((n) => n.endsWith(ext))) fs.copyFileSync(path.join(from, name), path.join(target, name));
}
