import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as stable from "./index.js";
import type { MethodEntry } from "./method-entry.js";
import {
  type JsonSchemaDoc,
  type MetaDoc,
  stableMeta,
  stableSchema,
  unstableMeta,
  unstableSchema,
} from "./testing/repo.js";
import * as unstable from "./unstable.js";

const flavours = [
  {
    name: "stable",
    table: stable.METHOD_TABLE,
    mod: stable,
    schemas: stable.schemas as Record<string, unknown>,
    schema: stableSchema(),
    meta: stableMeta(),
  },
  {
    name: "unstable",
    table: unstable.METHOD_TABLE,
    mod: unstable,
    schemas: unstable.unstableSchemas as Record<string, unknown>,
    schema: unstableSchema(),
    meta: unstableMeta(),
  },
] as const;

function metaSides(meta: MetaDoc): Map<string, { key: string; sides: Set<string> }> {
  const out = new Map<string, { key: string; sides: Set<string> }>();
  const add = (list: Record<string, string>, side: string) => {
    for (const [key, method] of Object.entries(list)) {
      const entry = out.get(method) ?? { key, sides: new Set<string>() };
      assert.equal(entry.key, key, `${method} has one meta key`);
      entry.sides.add(side);
      out.set(method, entry);
    }
  };
  add(meta.agentMethods, "agent");
  add(meta.clientMethods, "client");
  add(meta.protocolMethods, "protocol");
  return out;
}

/** Follows $ref, single allOf and nullable anyOf to the object schema whose properties we can walk. */
function resolve(doc: JsonSchemaDoc, node: any): any {
  for (;;) {
    if (node.$ref) node = doc.$defs[node.$ref.replace("#/$defs/", "")];
    else if (node.allOf?.length === 1 && !node.properties) node = node.allOf[0];
    else if (node.anyOf?.length === 2 && node.anyOf.some((v: any) => v.type === "null"))
      node = node.anyOf.find((v: any) => v.type !== "null");
    else return node;
  }
}

for (const f of flavours) {
  describe(`${f.name} method table`, () => {
    const sides = metaSides(f.meta);

    test("lists exactly the x-method defs of the schema, handled by their x-side, keyed as meta.json keys them", () => {
      const xMethods = new Set(
        Object.values(f.schema.$defs)
          .map((d) => d["x-method"])
          .filter(Boolean),
      );
      assert.deepEqual(new Set(f.table.map((e) => e.method)), xMethods);
      for (const e of f.table) {
        const meta = sides.get(e.method);
        if (meta) assert.equal(e.key, meta.key, e.method);
        else
          assert.equal(
            e.key,
            e.method.replace(/^\$\//, "").replaceAll("/", "_"),
            `${e.method}: a key derived from its name`,
          );
        assert.equal(e.handledBy, f.schema.$defs[e.params]["x-side"], e.method);
      }
      const keys = f.table.map((e) => `${e.method} ${e.kind}`);
      assert.equal(new Set(keys).size, keys.length, "one entry per method and kind");
    });

    test("pairs params and results through x-method and x-side, each with a compiled schema", () => {
      for (const e of f.table) {
        const params = f.schema.$defs[e.params];
        assert.equal(params["x-method"], e.method, e.params);
        assert.equal(params["x-side"], e.handledBy, e.params);
        assert.ok(f.schemas[e.params], `schemas.${e.params}`);
        assert.equal(e.kind === "request", e.result !== undefined, `${e.method}: only requests have results`);
        if (e.result) {
          assert.equal(f.schema.$defs[e.result]["x-method"], e.method);
          assert.ok(f.schemas[e.result], `schemas.${e.result}`);
        }
        assert.match(e.params, e.kind === "request" ? /Request$/ : /Notification$/);
      }
      const xMethods = Object.entries(f.schema.$defs)
        .filter(([, d]) => d["x-method"])
        .map(([n]) => n)
        .sort();
      const used = f.table.flatMap((e) => [e.params, e.result ?? []].flat()).sort();
      assert.deepEqual(used, xMethods, "every x-method def is in the table exactly once");
    });

    test("every capability path resolves in the schema", () => {
      for (const e of f.table) {
        if (!e.capability) continue;
        let node = f.schema.$defs[e.capability.advertisedBy === "agent" ? "AgentCapabilities" : "ClientCapabilities"];
        for (const key of e.capability.path) {
          node = resolve(f.schema, node);
          assert.ok(node.properties?.[key], `${e.method}: ${e.capability.path.join(".")} stops at ${key}`);
          node = node.properties[key];
        }
      }
    });

    test("constants list the methods by the side that handles them, as the official SDK 2.4.0 does", async () => {
      const official = (await import(
        f.name === "stable" ? "@agentclientprotocol/sdk" : "@agentclientprotocol/sdk/unstable"
      )) as Record<string, unknown>;
      for (const name of ["AGENT_METHODS", "CLIENT_METHODS", "PROTOCOL_METHODS", "PROXY_METHODS"]) {
        const ours = (f.mod as Record<string, unknown>)[name];
        assert.deepEqual(ours && { ...(ours as object) }, official[name] && { ...(official[name] as object) }, name);
      }
      assert.equal(f.mod.PROTOCOL_VERSION, f.meta.version);
      assert.equal(f.mod.PROTOCOL_VERSION, 1);
    });
  });
}

describe("stable and unstable tables", () => {
  test("stable is a subset of unstable with the same gates; stability marks the difference", () => {
    const byKey = (table: readonly MethodEntry[]) => new Map(table.map((e) => [`${e.method} ${e.kind}`, e]));
    const u = byKey(unstable.METHOD_TABLE);
    for (const e of stable.METHOD_TABLE) {
      assert.equal(e.stability, "stable");
      assert.deepEqual(u.get(`${e.method} ${e.kind}`), e);
    }
    const stableNames = new Set(stable.METHOD_TABLE.map((e) => e.method));
    for (const e of unstable.METHOD_TABLE)
      assert.equal(e.stability, stableNames.has(e.method) ? "stable" : "unstable", e.method);
    assert.ok(
      unstable.METHOD_TABLE.some((e) => e.method === "mcp/message" && e.kind === "request" && e.handledBy === "client"),
    );
    assert.ok(
      unstable.METHOD_TABLE.some(
        (e) => e.method === "mcp/message" && e.kind === "notification" && e.handledBy === "agent",
      ),
    );
    assert.ok(unstable.METHOD_TABLE.filter((e) => e.method.startsWith("proxy/")).every((e) => e.handledBy === "proxy"));
  });

  test("the gates named in the protocol prose", () => {
    const gate = (method: string) => {
      const e = unstable.METHOD_TABLE.find((x) => x.method === method)!;
      return e.capability ? `${e.capability.advertisedBy}:${e.capability.path.join(".")}` : "none";
    };
    assert.equal(gate("session/load"), "agent:loadSession");
    assert.equal(gate("session/list"), "agent:sessionCapabilities.list");
    assert.equal(gate("session/resume"), "agent:sessionCapabilities.resume");
    assert.equal(gate("session/close"), "agent:sessionCapabilities.close");
    assert.equal(gate("session/delete"), "agent:sessionCapabilities.delete");
    assert.equal(gate("session/fork"), "agent:sessionCapabilities.fork");
    assert.equal(gate("logout"), "agent:auth.logout");
    assert.equal(gate("fs/read_text_file"), "client:fs.readTextFile");
    assert.equal(gate("fs/write_text_file"), "client:fs.writeTextFile");
    for (const t of ["create", "output", "release", "wait_for_exit", "kill"])
      assert.equal(gate(`terminal/${t}`), "client:terminal");
    assert.equal(gate("elicitation/create"), "client:elicitation");
    assert.equal(gate("providers/list"), "agent:providers");
    assert.equal(gate("session/archive"), "agent:sessionCapabilities.archive");
    assert.equal(gate("session/unarchive"), "agent:sessionCapabilities.archive");
    assert.equal(gate("session/status"), "agent:sessionCapabilities.status");
    assert.equal(gate("session/set_title"), "agent:sessionCapabilities.title");
    assert.equal(gate("auth/status"), "agent:auth.status");
    assert.equal(gate("mcp/message"), "agent:mcpCapabilities.acp");
    for (const baseline of [
      "initialize",
      "authenticate",
      "session/new",
      "session/prompt",
      "session/cancel",
      "session/update",
      "session/request_permission",
      "$/cancel_request",
    ]) {
      assert.equal(gate(baseline), "none", baseline);
    }
  });
});

describe("peerSupports", () => {
  test("gated methods need the peer's capability; baseline and extension methods do not", () => {
    assert.equal(stable.peerSupports("session/load", { loadSession: true }), true);
    assert.equal(stable.peerSupports("session/load", { loadSession: false }), false);
    assert.equal(stable.peerSupports("session/load", undefined), false);
    assert.equal(stable.peerSupports("session/list", { sessionCapabilities: { list: {} } }), true);
    assert.equal(stable.peerSupports("session/list", { sessionCapabilities: { list: null } }), false);
    assert.equal(stable.peerSupports("fs/read_text_file", { fs: { readTextFile: true, writeTextFile: false } }), true);
    assert.equal(
      stable.peerSupports("fs/write_text_file", { fs: { readTextFile: true, writeTextFile: false } }),
      false,
    );
    assert.equal(stable.peerSupports("terminal/create", { terminal: true }), true);
    assert.equal(stable.peerSupports("session/prompt", {}), true);
    assert.equal(stable.peerSupports("_vendor/custom", {}), true);
  });

  test("a gate the sender advertises itself does not block it", () => {
    assert.equal(unstable.peerSupports("nes/suggest", {}), false, "NES gates are known to peerSupports");
    assert.equal(
      unstable.peerSupports("document/didChange", {
        nes: { events: { document: { didChange: { syncKind: "full" } } } },
      }),
      true,
    );
    assert.equal(unstable.peerSupports("mcp/message", {}, "agent"), false);
    assert.equal(unstable.peerSupports("mcp/message", { mcpCapabilities: { acp: true } }, "agent"), true);
    assert.equal(unstable.peerSupports("mcp/message", {}, "client"), true);
  });

  test("hasCapability treats false and null as absent", () => {
    assert.equal(stable.hasCapability({ a: { b: 0 } }, ["a", "b"]), true);
    assert.equal(stable.hasCapability({ a: { b: false } }, ["a", "b"]), false);
    assert.equal(stable.hasCapability({ a: null }, ["a", "b"]), false);
    assert.equal(stable.hasCapability("x", ["a"]), false);
  });
});
