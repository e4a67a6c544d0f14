/**
 * Property tests of the JSON-RPC engine: random interleavings of the peer's requests, notifications, cancels,
 * answers to our requests, stray answers and garbage. Whatever the order: every request of the peer is answered
 * exactly once, every request of ours settles exactly once, a notification that arrived before an answer reaches
 * its handler before that answer resolves, and nothing throws. Bounded for CI; `ACPKIT_PROPERTY_RUNS=100000` for
 * a long run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { JsonRpcConnection, CANCEL_REQUEST_METHOD } from "./connection.js";
import { silentLogger } from "./logger.js";
import type { AnyMessage, JsonRpcId } from "./messages.js";
import { RequestError } from "./request-error.js";
import { checkAsyncProperty } from "./testing/property.js";
import { ScriptedLink } from "./testing/scripted-link.js";

type Step =
  | { kind: "request"; hops: number; fails: boolean; stringId: boolean }
  | { kind: "notify" }
  | { kind: "cancel"; which: number }
  | { kind: "ask" }
  | { kind: "answer"; which: number; error: boolean }
  | { kind: "stray"; id: number }
  | { kind: "garbage"; value: unknown }
  | { kind: "wait"; hops: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("request" as const), hops: fc.nat(4), fails: fc.boolean(), stringId: fc.boolean() }),
  fc.record({ kind: fc.constant("notify" as const) }),
  fc.record({ kind: fc.constant("cancel" as const), which: fc.nat() }),
  fc.record({ kind: fc.constant("ask" as const) }),
  fc.record({ kind: fc.constant("answer" as const), which: fc.nat(), error: fc.boolean() }),
  fc.record({ kind: fc.constant("stray" as const), id: fc.integer({ min: 100_000, max: 200_000 }) }),
  fc.record({
    kind: fc.constant("garbage" as const),
    value: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant({ jsonrpc: "2.0" }),
      fc.constant({ jsonrpc: "2.0", id: {}, method: "x" }),
      fc.constant([]),
    ),
  }),
  fc.record({ kind: fc.constant("wait" as const), hops: fc.nat(3) }),
);

const hop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const idKey = (id: unknown): string => JSON.stringify(id);

test(
  "random interleavings: every request answered exactly once, " + "ours settled once, notifications before answers",
  async () => {
    await checkAsyncProperty(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const link = new ScriptedLink();
        const log: string[] = [];
        let notes = 0;
        const connection = new JsonRpcConnection(
          link,
          {
            async request(_method, params, context) {
              const { hops, fails } = params as { hops: number; fails: boolean };
              for (let i = 0; i < hops && !context.signal.aborted; i++) await hop();
              if (fails) throw RequestError.internalError(undefined, "asked to fail");
              return { done: true };
            },
            notification(method, params) {
              if (method === "note") log.push(`note ${(params as { n: number }).n}`);
            },
          },
          { logger: silentLogger },
        );
        const peerIds: JsonRpcId[] = [];
        const ours: Array<{ id: JsonRpcId | undefined; settled: number; answered: boolean }> = [];
        const mustPrecede: Array<[string, string]> = [];
        let nextPeerId = 0;
        for (const s of steps) {
          switch (s.kind) {
            case "request": {
              const id = s.stringId ? `p${nextPeerId++}` : nextPeerId++;
              peerIds.push(id);
              link.inject({ jsonrpc: "2.0", id, method: "work", params: { hops: s.hops, fails: s.fails } });
              break;
            }
            case "notify":
              link.inject({ jsonrpc: "2.0", method: "note", params: { n: notes++ } });
              break;
            case "cancel":
              if (peerIds.length > 0)
                link.inject({
                  jsonrpc: "2.0",
                  method: CANCEL_REQUEST_METHOD,
                  params: { requestId: peerIds[s.which % peerIds.length] },
                });
              break;
            case "ask": {
              const before = link.sent.length;
              const entry: { id: JsonRpcId | undefined; settled: number; answered: boolean } = {
                id: undefined,
                settled: 0,
                answered: false,
              };
              ours.push(entry);
              const index = ours.length - 1;
              void connection.request("ask", {}).then(
                () => (entry.settled++, log.push(`resolved ${index}`)),
                () => (entry.settled++, log.push(`resolved ${index}`)),
              );
              entry.id = (link.sent[before] as { id: JsonRpcId }).id;
              break;
            }
            case "answer": {
              const open = ours.filter((o) => !o.answered);
              if (open.length === 0) break;
              const target = open[s.which % open.length]!;
              target.answered = true;
              if (notes > 0) mustPrecede.push([`note ${notes - 1}`, `resolved ${ours.indexOf(target)}`]);
              link.inject(
                s.error
                  ? { jsonrpc: "2.0", id: target.id, error: { code: -32000, message: "no" } }
                  : { jsonrpc: "2.0", id: target.id, result: { ok: 1 } },
              );
              break;
            }
            case "stray":
              link.inject({ jsonrpc: "2.0", id: s.id, result: {} });
              break;
            case "garbage":
              link.inject(s.value);
              break;
            case "wait":
              for (let i = 0; i < s.hops; i++) await hop();
              break;
          }
        }
        // Answer what is left, then let every handler finish.
        for (const o of ours.filter((o) => !o.answered)) link.inject({ jsonrpc: "2.0", id: o.id, result: {} });
        for (let i = 0; i < 10 && (connection.runningHandlerCount > 0 || ours.some((o) => o.settled === 0)); i++)
          await hop();
        while (connection.runningHandlerCount > 0) await hop();
        await hop();

        const replies = new Map<string, number>();
        for (const m of link.sent as Array<AnyMessage & { id?: JsonRpcId; method?: string }>) {
          if (m.method === undefined && m.id !== null && m.id !== undefined)
            replies.set(idKey(m.id), (replies.get(idKey(m.id)) ?? 0) + 1);
        }
        for (const id of peerIds)
          assert.equal(replies.get(idKey(id)), 1, `request ${idKey(id)} answered ${replies.get(idKey(id)) ?? 0} times`);
        for (const key of replies.keys())
          assert.ok(
            peerIds.some((id) => idKey(id) === key),
            `a reply to ${key}, which the peer never asked`,
          );
        for (const [index, o] of ours.entries())
          assert.equal(o.settled, 1, `our request ${index} settled ${o.settled} times`);
        for (const [note, resolved] of mustPrecede) {
          assert.ok(
            log.indexOf(note) !== -1 && log.indexOf(note) < log.indexOf(resolved),
            `${note} before ${resolved}: ${log.join(", ")}`,
          );
        }
        assert.equal(connection.isClosed, false);
      }),
      150,
    );
  },
);
