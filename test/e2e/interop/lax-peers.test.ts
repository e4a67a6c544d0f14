/**
 * Faults 3 and 6 of issue 8 over real processes, in every pairing of a 2.x client app and a 2.x agent app (acpkit or
 * the official SDK 2.4.0, the same program text on either), both on their default logger:
 * - fault 3, tolerant reader: an agent (official or acpkit) sends an update kind newer than the schema and answers a
 *   prompt with a stop reason newer than the schema; an acpkit client hands the update to its handler unchanged,
 *   passes the result through, and reports the result's problem on stderr with its JSON path;
 * - fault 3, forgiving writer: an acpkit agent sends both anyway (they are on the wire, whoever the client is) and
 *   reports each on stderr with its JSON path, then carries on;
 * - fault 6: what the official SDK reports on `console.error` (a response to an unknown request id, a throwing
 *   notification handler) an acpkit peer reports on stderr too, on either side, plus a non-JSON line on stdout.
 * The client is a program of its own (`fixtures/dropin-lax-client.ts`) that starts the agent
 * (`fixtures/dropin-lax-agent.ts`): the client's own stderr is then real too.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import type { Impl } from "./support/impl.js";
import { fixturePath } from "./support/spawn.js";

const run = promisify(execFile);

interface Outcome {
  updates: unknown[];
  results: Record<string, unknown>;
  agentLines: string[];
  agentExit: number | null;
  agentStderr: string;
  clientStderr: string;
}

async function pairing(client: Impl, agent: Impl): Promise<Outcome> {
  const { stdout, stderr } = await run(
    process.execPath,
    [fixturePath("dropin-lax-client"), `--impl=${client}`, `--agent-impl=${agent}`],
    { timeout: 120_000 },
  );
  return { ...(JSON.parse(stdout) as Omit<Outcome, "clientStderr">), clientStderr: stderr };
}

const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const NEWER_UPDATE = { sessionUpdate: "usage_forecast", forecast: { tokens: 12 } };

for (const client of ["acpkit", "official"] as const) {
  for (const agent of ["acpkit", "official"] as const) {
    describe(`${client} client app, ${agent} agent app (real processes, default loggers)`, () => {
      let outcome: Outcome;
      test(
        "the run completes: every prompt is answered and the agent " + "carries on after what it sent off-schema",
        async () => {
          outcome = await pairing(client, agent);
          assert.equal(outcome.agentExit, 0, outcome.agentStderr);
          assert.deepEqual(outcome.results, {
            "newer-update": { stopReason: "end_turn" },
            "off-result": { stopReason: "paused" },
            noise: { stopReason: "end_turn" },
          });
          const texts = outcome.updates.filter(
            (update) => (update as { sessionUpdate?: string }).sessionUpdate === "agent_message_chunk",
          );
          assert.deepEqual(texts, [chunk("after newer-update"), chunk("after noise")]);
          assert.ok(
            outcome.agentLines.some((line) => line.includes('"usage_forecast"')),
            "the newer update kind is on the wire",
          );
          assert.ok(
            outcome.agentLines.some((line) => /"stopReason":"paused"/.test(line)),
            "the newer stop reason is on the wire",
          );
        },
      );

      if (client === "acpkit") {
        test(
          "fault 3 (tolerant reader): the newer update kind reaches the acpkit client's handler unchanged; the " +
            "result's problem is on its stderr with the path",
          () => {
            assert.deepEqual(outcome.updates[0], NEWER_UPDATE);
            assert.match(
              outcome.clientStderr,
              /acpkit warn: the peer's session\/prompt result does not match the schema[^\n]*passed through/,
            );
            assert.match(outcome.clientStderr, /path: '\$\.stopReason'[\s\S]*received: 'string "paused"'/);
          },
        );

        test(
          "fault 6: the acpkit client reports on stderr a non-JSON line, a response to an unknown id and a " +
            "throwing notification handler",
          () => {
            assert.match(
              outcome.clientStderr,
              /acpkit warn: skipped a line from the peer that is not JSON[^\n]*this line is not JSON/,
            );
            assert.match(outcome.clientStderr, /acpkit warn: got a response to an unknown request id[^\n]*987654/);
            assert.match(
              outcome.clientStderr,
              /acpkit error: a notification handler failed[\s\S]*_test\/throw[\s\S]*the client's notification handler broke/,
            );
          },
        );
      } else {
        test(
          "reference: the official client reports the unknown id and the throwing handler on stderr (what " +
            "acpkit matches)",
          () => {
            assert.match(outcome.clientStderr, /Got response to unknown request 987654/);
            assert.match(outcome.clientStderr, /Error handling notification[^\n]*_test\/throw/);
          },
        );
      }

      if (agent === "acpkit") {
        test(
          "fault 3 (forgiving writer): the acpkit agent sent the newer update and result anyway and reported " +
            "each on stderr with its path",
          () => {
            assert.match(
              outcome.agentStderr,
              /acpkit warn: sent a session\/update notification that does not match the schema[^\n]*sent anyway/,
            );
            assert.match(
              outcome.agentStderr,
              /path: '\$\.update\.sessionUpdate'[\s\S]*received: 'string "usage_forecast"'/,
            );
            assert.match(
              outcome.agentStderr,
              /acpkit warn: answered a session\/prompt result that does not match the schema[^\n]*sent anyway/,
            );
            assert.match(outcome.agentStderr, /path: '\$\.stopReason'/);
          },
        );

        test("fault 6: the acpkit agent reports the client's notification whose handler threw on stderr", () => {
          assert.match(
            outcome.agentStderr,
            /acpkit error: a notification handler failed[\s\S]*_test\/throw[\s\S]*the agent's notification handler broke/,
          );
        });
      } else {
        test("reference: the official agent reports the throwing notification handler on stderr", () => {
          assert.match(outcome.agentStderr, /Error handling notification[^\n]*_test\/throw/);
        });
      }
    });
  }
}
