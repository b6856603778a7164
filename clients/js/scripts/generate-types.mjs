// The message types of types/: TypeScript declarations generated from the published schemas
// (docs/protocol/client-messages.schema.json, server-messages.schema.json) with
// json-schema-to-typescript. `npm run types` writes them; the package's tests check that the
// files shipped are what this makes of the schemas as they are.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
export const PUBLISHED = path.resolve(here, "../../../docs/protocol");
export const TYPES = path.resolve(here, "../types");

/** The generated files: name in types/ -> the schema it comes from. */
export const GENERATED = {
  "client-messages.d.ts": "client-messages.schema.json",
  "server-messages.d.ts": "server-messages.schema.json",
};

const BANNER = (schema) => `// Generated from docs/protocol/${schema} by scripts/generate-types.mjs (npm run types); do not edit.\n`;

/** What each file of GENERATED holds, made from the schemas now. */
export async function generate() {
  const out = {};
  for (const [file, schema] of Object.entries(GENERATED)) {
    const doc = JSON.parse(fs.readFileSync(path.join(PUBLISHED, schema), "utf8"));
    out[file] = BANNER(schema) + await compile(doc, schema.replace(".schema.json", ""), {
      bannerComment: "", additionalProperties: false, cwd: PUBLISHED, format: true,
    });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(await generate())) {
    fs.writeFileSync(path.join(TYPES, file), text);
    console.log(`types/${file}: ${text.length} characters`);
  }
}
