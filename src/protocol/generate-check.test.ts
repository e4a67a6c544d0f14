import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { repoRoot } from "./testing/repo.js";

// Runs the real generator (`tsx scripts/generate.ts --check --out <dir>`) against a scratch copy of the generated
// files.
const generatedDir = join(repoRoot, "src/protocol/generated");
const scratch = mkdtempSync(join(tmpdir(), "acpkit-generate-check-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function check(): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/generate.ts", "--check", "--out", scratch], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function freshCopy(): void {
  for (const name of readdirSync(scratch)) unlinkSync(join(scratch, name));
  for (const name of readdirSync(generatedDir)) copyFileSync(join(generatedDir, name), join(scratch, name));
}

test("the committed generated files are what the generator produces", () => {
  freshCopy();
  const { status, output } = check();
  assert.equal(status, 0, output);
  assert.match(output, /up to date/);
});

test("a hand-edit of a generated file fails the check and names the file", () => {
  freshCopy();
  appendFileSync(join(scratch, "validators.ts"), "// a hand edit\n");
  const { status, output } = check();
  assert.equal(status, 1, output);
  assert.match(output, /validators\.ts: differs from the generator's output/);
  assert.doesNotMatch(output, /types\.ts: differs/);
});

test("a missing generated file and a stray file are both reported", () => {
  freshCopy();
  unlinkSync(join(scratch, "methods.unstable.ts"));
  writeFileSync(join(scratch, "stray.ts"), "export {};\n");
  const { status, output } = check();
  assert.equal(status, 1, output);
  assert.match(output, /methods\.unstable\.ts: missing/);
  assert.match(output, /stray\.ts: not produced by the generator/);
});

test("the generator refuses what it cannot compile faithfully, naming where", () => {
  const script = `
    import { auditKeywords } from "./scripts/generate/schema.ts";
    import { verifyGate } from "./scripts/generate/methods.ts";
    import { Compiler } from "./scripts/generate/validator-compiler.ts";
    const attempts = {
      keyword: () => auditKeywords({ properties: { a: { type: "string", dependentRequired: { a: ["b"] } } } }, "Def"),
      format: () => auditKeywords({ type: "string", format: "email" }, "Def"),
      gate: () => verifyGate({ file: "f", defs: { AgentCapabilities: { properties: {} } } }, "x/y", { advertisedBy: "agent", path: ["nope"] }),
      untaggedOneOf: () => new Compiler({ U: { oneOf: [{ type: "object", properties: {} }, { type: "object", required: ["a"] }] } }).def("U"),
      overlappingOneOf: () => new Compiler({ N: { oneOf: [{ type: "number" }, { type: "integer" }] } }).def("N"),
      requiredLenientEnum: () => new Compiler({
        O: { type: "object", required: ["k"], properties: { k: { "x-deserialize-default-on-error": true, allOf: [{ $ref: "#/$defs/E" }] } } },
        E: { oneOf: [{ type: "string", const: "x" }] },
      }).def("O"),
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      try { attempt(); console.log(name + ": accepted"); } catch (e) { console.log(name + ": " + e.message); }
    }`;
  const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  const lines = result.stdout.trim().split("\n");
  assert.deepEqual(
    lines,
    [
      'keyword: unknown JSON Schema keyword "dependentRequired" at Def/properties/a: teach scripts/generate about it',
      'format: unsupported format "email" at Def',
      'gate: f: capability for x/y: AgentCapabilities has no property "nope"',
      "untaggedOneOf: U: oneOf without a discriminating tag or required keys cannot be checked deterministically",
      "overlappingOneOf: N: oneOf variants 0 and 1 can match the same value",
      "requiredLenientEnum: O/properties/k: required default-on-error property without a default or a natural " +
        "empty value",
    ],
    result.stderr,
  );
});
