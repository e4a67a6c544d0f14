/**
 * Test helpers: the repository root (tests run from dist/) and the vendored schema files, read as JSON.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "@acpkit/sdk")
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the acpkit repository root");
    dir = up;
  }
}

export const repoRoot = findRoot();

export function readJson<T = any>(relativePath: string): T {
  return JSON.parse(readFileSync(join(repoRoot, relativePath), "utf8")) as T;
}

export interface JsonSchemaDoc {
  $defs: Record<string, any>;
  anyOf?: any[];
}

export interface MetaDoc {
  version: number;
  agentMethods: Record<string, string>;
  clientMethods: Record<string, string>;
  protocolMethods: Record<string, string>;
}

export const stableSchema = (): JsonSchemaDoc => readJson("schema/v1/schema.json");
export const unstableSchema = (): JsonSchemaDoc => readJson("schema/v1/schema.unstable.json");
export const stableMeta = (): MetaDoc => readJson("schema/v1/meta.json");
export const unstableMeta = (): MetaDoc => readJson("schema/v1/meta.unstable.json");
