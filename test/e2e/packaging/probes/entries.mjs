// Imports every entry point of the installed acpkit: ESM `import`, CommonJS `require` where the entry offers it, and
// the schema JSON files. Prints { esm, cjs, json, needsPeer, failures } as JSON: export counts per subpath; an entry
// that cannot load only because an optional peer it is built on is absent is listed in needsPeer, any other failure
// in failures.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";
import { URL } from "node:url";

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("./node_modules/@acpkit/sdk/package.json", import.meta.url), "utf8"));
const result = { esm: {}, cjs: {}, json: {}, needsPeer: {}, failures: [] };
const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);
/**
 * The optional peer whose absence `error` reports (an entry that mirrors an official one needing that peer), if any.
 */
function missingPeer(error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" && error?.code !== "MODULE_NOT_FOUND") return undefined;
  return optionalPeers.find(
    (name) => String(error.message).includes(`'${name}'`) || String(error.message).includes(`'${name}/`),
  );
}
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (subpath === "./package.json") continue;
  const specifier = subpath === "." ? "@acpkit/sdk" : `@acpkit/sdk${subpath.slice(1)}`;
  try {
    if (subpath.endsWith(".json")) {
      const schema = require(specifier);
      result.json[subpath] = Object.keys(schema.$defs ?? schema.definitions ?? {}).length;
      continue;
    }
    result.esm[subpath] = Object.keys(await import(specifier)).length;
    if (typeof target === "object" && target.require !== undefined)
      result.cjs[subpath] = Object.keys(require(specifier)).length;
  } catch (error) {
    const peer = missingPeer(error);
    if (peer !== undefined) result.needsPeer[subpath] = peer;
    else result.failures.push(`${subpath}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.stdout.write(JSON.stringify(result));
