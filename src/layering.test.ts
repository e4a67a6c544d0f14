import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, dirname, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// Runs from dist/src/layering.test.js; reads the TypeScript sources.
const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Which top-level folders of src/ each folder may import from. Imports flow one way. */
const allowed: Record<string, readonly string[]> = {
  protocol: ["protocol"],
  jsonrpc: ["jsonrpc"],
  transports: ["transports", "jsonrpc"],
  acp: ["acp", "protocol", "jsonrpc", "transports"],
  agent: ["agent", "acp", "protocol", "jsonrpc", "transports"],
  client: ["client", "acp", "protocol", "jsonrpc", "transports"],
  wire: ["wire", "acp", "protocol", "jsonrpc", "transports"],
  // ACP over the network: the HTTP/WebSocket client transports and AcpServer, above the ACP core.
  remote: ["remote", "agent", "client", "acp", "protocol", "jsonrpc", "transports"],
  node: ["node", "remote", "wire", "agent", "client", "acp", "protocol", "jsonrpc", "transports"],
  // Thin files per public subpath: explicit export lists, no logic.
  entries: ["entries", "node", "remote", "wire", "agent", "client", "acp", "protocol", "jsonrpc", "transports"],
  cli: [
    "cli",
    "node",
    "wire",
    "agent",
    "client",
    "acp",
    "protocol",
    "jsonrpc",
    "transports",
    "apps",
    "entries",
    "remote",
  ],
  apps: ["apps", "node", "wire", "agent", "client", "acp", "protocol", "jsonrpc", "transports", "entries", "remote"],
  "(root)": [],
};
/** Folders that may import node:* built-ins and npm packages. Everything else must bundle for a browser. */
const mayUseNode = new Set(["node", "cli", "apps"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !path.includes(`${sep}testing${sep}`)
      ? [path]
      : [];
  });
}

function layerOf(path: string): string {
  const rel = relative(srcRoot, path).split(sep);
  return rel.length === 1 ? "(root)" : rel[0]!;
}

function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

test("imports flow one way, and only node/, cli/ and apps/ use Node built-ins or npm packages", () => {
  const files = sourceFiles(srcRoot);
  assert.ok(files.length > 20, `expected the sources under ${srcRoot}`);
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      const where = relative(srcRoot, file);
      if (specifier.startsWith(".")) {
        const target = layerOf(resolve(dirname(file), specifier));
        if (!(allowed[layer] ?? []).includes(target))
          violations.push(`${where} imports ${specifier} (${layer} -> ${target})`);
      } else if (!mayUseNode.has(layer)) {
        violations.push(`${where} imports ${specifier}: ${layer}/ must stay browser-safe and dependency-free`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("the layering check itself catches a wrong-way arrow", () => {
  assert.deepEqual(importsOf('import { x } from "../client/y.js";\nexport * from "./z.js";'), [
    "../client/y.js",
    "./z.js",
  ]);
  assert.equal(allowed.agent!.includes("client"), false);
  assert.equal(allowed.jsonrpc!.includes("protocol"), false);
});
