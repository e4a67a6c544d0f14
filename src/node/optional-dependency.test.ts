import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { LocalError } from "../jsonrpc/local-errors.js";
import {
  importOptional,
  MCP_SDK_DEPENDENCY,
  OptionalDependencyMissingError,
  requireOptional,
  WS_DEPENDENCY,
  type OptionalDependency,
} from "./optional-dependency.js";

const ABSENT: OptionalDependency = { name: "acpkit-absent-peer", range: "2", feature: "Frobbing" };

test("a missing peer rejects with a local error naming the package and the command to install it", async () => {
  const error = await importOptional(ABSENT).then(
    () => assert.fail("imported a package that is not installed"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OptionalDependencyMissingError);
  assert.ok(error instanceof LocalError);
  assert.equal(error.kind, "dependency_missing");
  assert.equal(
    error.message,
    "acpkit: Frobbing needs the 'acpkit-absent-peer' package: npm install acpkit-absent-peer@2",
  );
  assert.equal(error.packageName, "acpkit-absent-peer");
  assert.equal((error.cause as { code?: string }).code, "ERR_MODULE_NOT_FOUND");
  assert.throws(
    () => requireOptional(ABSENT),
    (thrown: unknown) => thrown instanceof OptionalDependencyMissingError && thrown.message === error.message,
  );
});

test("a subpath of a missing peer is reported as the peer missing", async () => {
  await assert.rejects(importOptional(ABSENT, "acpkit-absent-peer/client/index.js"), OptionalDependencyMissingError);
});

test("the messages for ws and the MCP SDK", () => {
  assert.equal(
    new OptionalDependencyMissingError(WS_DEPENDENCY).message,
    "acpkit: WebSocket support needs the 'ws' package: npm install ws@8",
  );
  assert.equal(
    new OptionalDependencyMissingError(MCP_SDK_DEPENDENCY).message,
    "acpkit: MCP server support needs the '@modelcontextprotocol/sdk' package: npm install @modelcontextprotocol/sdk@1",
  );
});

test("an installed peer loads, by import and by require, as the same module", async () => {
  const imported = await importOptional<typeof import("ws")>(WS_DEPENDENCY);
  const required = requireOptional<typeof import("ws")>(WS_DEPENDENCY);
  assert.equal(typeof imported.WebSocketServer, "function");
  assert.equal(imported.WebSocket, required.WebSocket);
});

test(
  "a peer that is installed but fails to load (a dependency of " + "its own missing) is not reported as missing",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpkit-optional-dependency-"));
    try {
      const file = join(dir, "broken.mjs");
      writeFileSync(file, 'import "acpkit-absent-inner-dependency";\n');
      const error = await importOptional(ABSENT, pathToFileURL(file).href).then(
        () => assert.fail("loaded a module whose import is missing"),
        (caught: unknown) => caught,
      );
      assert.ok(
        !(error instanceof OptionalDependencyMissingError),
        "a broken install must not read as 'install the package'",
      );
      assert.match(String((error as Error).message), /acpkit-absent-inner-dependency/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
