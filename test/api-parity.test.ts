import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import * as acpkit from "../src/index.js";
import { repoRoot } from "../src/protocol/testing/repo.js";

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ["node"],
};

/** Every name a declaration file exports (values and types), by the TypeScript compiler. */
function exportedNames(dts: string): string[] {
  const program = ts.createProgram([dts], compilerOptions);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(dts)!)!;
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** Type-checks a generated module; returns its diagnostics as text. */
function compile(source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "acpkit-parity-"));
  try {
    const file = join(dir, "imports.mts");
    writeFileSync(file, source);
    const program = ts.createProgram([file], { ...compilerOptions, typeRoots: [join(repoRoot, "node_modules/@types")] });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * MCP-over-ACP helpers of the official unstable entries (`McpOverAcpCaller`, `McpOverAcpProvider`, ...): they come
 * with the MCP-over-ACP work, not yet in acpkit. Every other name must be there.
 */
const MCP_OVER_ACP = new Set([
  "MCP_MESSAGE_METHOD", "MCP_META_CLIENT_CAPABILITIES", "MCP_META_CLIENT_INFO", "MCP_META_PROTOCOL_VERSION", "MCP_PROTOCOL_VERSION",
  "McpBindingErrorCode", "McpOverAcpCaller", "McpOverAcpProvider", "McpProtocolError", "McpServerRegistration", "isMcpServerAcp",
  "parseMcpOutcome", "withMcpRequestMeta", "McpCallerOptions", "McpClientInfo", "McpErrorObject", "McpMessageNotificationContext",
  "McpMessageParams", "McpMessageRequestContext", "McpNotification", "McpOutcome", "McpOperationContext", "McpRequestHandler",
  "McpRequestOptions", "McpServerAcpDeclaration", "McpServerOptions", "HasConnectionContext",
]);

const sdk = "node_modules/@agentclientprotocol/sdk";
/** Each official entry and the acpkit entry that stands for it. */
const ENTRIES = [
  { official: "@agentclientprotocol/sdk", dts: `${sdk}/dist/v1/stable/acp.d.ts`, ours: "src/index" },
  { official: "@agentclientprotocol/sdk/unstable", dts: `${sdk}/dist/v1/unstable/acp.d.ts`, ours: "src/unstable" },
  { official: "@agentclientprotocol/sdk/experimental/nes", dts: `${sdk}/dist/nes/acp.d.ts`, ours: "src/experimental/nes" },
  { official: "sdk-v1", dts: "node_modules/sdk-v1/dist/acp.d.ts", ours: "src/index" },
  { official: "sdk-v1/experimental/nes", dts: "node_modules/sdk-v1/dist/nes/acp.d.ts", ours: "src/experimental/nes" },
] as const;

for (const entry of ENTRIES) {
  test(`every value ${entry.official} exports, acpkit's ${entry.ours} exports too`, async () => {
    const theirs = (await import(entry.official)) as Record<string, unknown>;
    const ours = (await import(join(repoRoot, "dist", `${entry.ours}.js`))) as Record<string, unknown>;
    const missing = Object.keys(theirs).filter((name) => !(name in ours) && !MCP_OVER_ACP.has(name));
    assert.deepEqual(missing, []);
    for (const [name, value] of Object.entries(theirs)) {
      if (name in ours) assert.equal(typeof ours[name], typeof value, `${name} is a ${typeof value} in both`);
    }
  });
}

test("every name (value or type) the official entries export compiles as an import from the acpkit entry", () => {
  const lines: string[] = [];
  const counts: string[] = [];
  for (const [i, entry] of ENTRIES.entries()) {
    const names = exportedNames(join(repoRoot, entry.dts)).filter((name) => !MCP_OVER_ACP.has(name));
    counts.push(`${entry.official}: ${names.length}`);
    lines.push(`import type { ${names.map((n) => `${n} as e${i}_${n}`).join(", ")} } from ${JSON.stringify(join(repoRoot, "dist", `${entry.ours}.js`))};`);
  }
  assert.deepEqual(compile(lines.join("\n") + "\nexport {};\n"), [], counts.join(", "));
});

test("the method-name constants match the official ones for every method of our schema", () => {
  for (const [name, table] of [["AGENT_METHODS", acpkit.AGENT_METHODS], ["CLIENT_METHODS", acpkit.CLIENT_METHODS], ["PROTOCOL_METHODS", acpkit.PROTOCOL_METHODS]] as const) {
    const theirs = (official as unknown as Record<string, Record<string, string>>)[name]!;
    for (const [key, method] of Object.entries(table)) assert.equal(theirs[key], method, `${name}.${key}`);
  }
  assert.equal(acpkit.PROTOCOL_VERSION, official.PROTOCOL_VERSION);
});

test("RequestError builds the same errors as the official one", () => {
  const cases: Array<[string, unknown[]]> = [
    ["parseError", [{ a: 1 }, "x"]],
    ["invalidRequest", [undefined, "bad"]],
    ["methodNotFound", ["session/x"]],
    ["invalidParams", [{ issues: [] }]],
    ["internalError", []],
    ["requestCancelled", []],
    ["authRequired", [undefined, "login"]],
    ["resourceNotFound", ["file:///x"]],
    ["sessionNotFound", ["sess-1"]],
    ["unsupportedProtocolVersion", [3, [1]]],
  ];
  for (const [factory, args] of cases) {
    const ours = (acpkit.RequestError as unknown as Record<string, (...a: unknown[]) => acpkit.RequestError>)[factory]!(...args);
    const theirs = (official.RequestError as unknown as Record<string, (...a: unknown[]) => { code: number; message: string; data?: unknown }>)[factory]!(...args);
    assert.equal(ours.code, theirs.code, factory);
    assert.equal(ours.message, theirs.message, factory);
    assert.deepEqual(ours.data, theirs.data, factory);
  }
});
