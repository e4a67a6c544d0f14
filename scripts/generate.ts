/**
 * Generates src/protocol/generated/* from the vendored ACP schema (schema/v1): types, method table, compiled
 * validators and variant guards, for the stable and the unstable schema.
 *
 *   tsx scripts/generate.ts            write the files
 *   tsx scripts/generate.ts --check    exit 1, naming each file, when regeneration would change anything
 *   --out <dir>                        use another output directory (tests check a scratch copy this way)
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateAll } from "./generate/all.js";
import { checkOutputs, writeOutputs } from "./generate/output.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const outDir = outIndex >= 0 ? resolve(args[outIndex + 1] ?? "") : resolve(repoRoot, "src/protocol/generated");

try {
  const outputs = generateAll(repoRoot);
  if (args.includes("--check")) {
    const problems = checkOutputs(outDir, outputs);
    if (problems.length) {
      console.error(`generate:check: generated files are out of date:\n  ${problems.join("\n  ")}`);
      process.exit(1);
    }
    console.log(`generate:check: ${outputs.size} generated files are up to date.`);
  } else {
    const changed = writeOutputs(outDir, outputs);
    console.log(changed.length ? `generate: wrote ${changed.join(", ")}` : "generate: everything up to date.");
  }
} catch (error) {
  console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
