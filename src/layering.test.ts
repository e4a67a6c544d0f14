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
  "(root)": [],
};
/** Folders that may import node:* built-ins and npm packages. Everything else must bundle for a browser. */
const mayUseNode = new Set(["node"]);

/**
 * Layers split into folders, and which sibling folders each folder may import. A layer's own root files are shared
 * by its folders (e.g. remote/http-protocol.ts, the wire vocabulary of both ends) and import none of them. A folder
 * missing here fails the test: a new folder says where it stands.
 */
const folders: Record<string, Record<string, readonly string[]>> = {
  // The client transports and the server never import each other: what both ends share sits in remote/ itself.
  remote: { client: [], server: [] },
  node: {
    stdio: [],
    process: ["stdio"],
    fs: [],
    terminal: ["fs", "process", "stdio"],
    // The session stores: on disk (FileSessionStore) and in PostgreSQL (on the postgres kit).
    store: ["postgres"],
    endpoint: ["process"],
    auth: [],
    mcp: ["process"],
    server: ["process"],
    wire: [],
    // The PostgreSQL kit (pool, migrations, retries, LISTEN, group commit) the cluster's shared state stands on.
    postgres: [],
    // A cluster of servers on PostgreSQL: the server backend whose state is in the database.
    cluster: ["postgres"],
  },
};

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

/** The folder of a split layer a path is in (`process` for src/node/process/x.ts), or "" for the layer's root files. */
function folderOf(path: string): string {
  const rel = relative(srcRoot, path).split(sep);
  return rel.length > 2 ? rel[1]! : "";
}

/** Why an import between two folders of a split layer is refused, or undefined when it is allowed. */
function folderViolation(layer: string, from: string, to: string): string | undefined {
  const table = folders[layer];
  if (table === undefined || from === to) return undefined;
  if (from !== "" && table[from] === undefined) return `${layer}/${from}/ is not in the layering test's folder table`;
  if (to === "") return undefined; // the layer's shared root files
  if (from === "") return `${layer}/'s shared files import none of its folders`;
  return table[from]!.includes(to) ? undefined : `${layer}/${from} -> ${layer}/${to}`;
}

function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

test("imports flow one way, and only node/ uses Node built-ins or npm packages", () => {
  const files = sourceFiles(srcRoot);
  assert.ok(files.length > 20, `expected the sources under ${srcRoot}`);
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      const where = relative(srcRoot, file);
      if (specifier.startsWith(".")) {
        const targetPath = resolve(dirname(file), specifier);
        const target = layerOf(targetPath);
        if (!(allowed[layer] ?? []).includes(target))
          violations.push(`${where} imports ${specifier} (${layer} -> ${target})`);
        else if (target === layer) {
          const refused = folderViolation(layer, folderOf(file), folderOf(targetPath));
          if (refused !== undefined) violations.push(`${where} imports ${specifier} (${refused})`);
        }
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
  assert.equal(folderViolation("remote", "client", "server"), "remote/client -> remote/server");
  assert.equal(folderViolation("remote", "server", ""), undefined);
  assert.match(folderViolation("remote", "", "client") ?? "", /shared files/);
  assert.match(folderViolation("node", "newthing", "fs") ?? "", /not in the layering test's folder table/);
});

test("every folder of a split layer is in the folder table", () => {
  for (const [layer, table] of Object.entries(folders)) {
    const present = readdirSync(join(srcRoot, layer), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "testing")
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(present, Object.keys(table).sort(), `the folders of src/${layer}/`);
  }
});
