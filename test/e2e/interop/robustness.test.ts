/**
 * Robustness of the acpkit client against a real agent process misbehaving (the agent runs the official SDK, so
 * only the client is under test): a non-JSON log line and an over-long line on the agent's stdout mid-conversation
 * (logged and skipped, the conversation completes), and the agent SIGKILLed mid-prompt (the pending prompt rejects
 * with a connection-closed error saying why, nothing unhandled, no process left). The official clients facing the
 * same are held to what they do today, the baseline of the comparison.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type * as acp from "sdk-1.9";
import { describe, it, type TestContext } from "node:test";
import { appDriver } from "./support/app-driver.js";
import { classDriver } from "./support/class-driver.js";
import { ClientHost } from "./support/client-host.js";
import type { Driver, DriverFactory, Logger } from "./support/driver.js";
import { acpkitAvailable, loadClasses, type Impl } from "./support/impl.js";
import { fixturePath, processAlive, spawnFixture, track, within, type SpawnedAgent } from "./support/spawn.js";
import { makeTempDir, removeTempDir } from "./support/temp.js";

const NOISE_BYTES = 2 * 1024 * 1024;
const MAX_MESSAGE_BYTES = 1024 * 1024;
const TEST = { timeout: 20_000 };
const acpkitMissing = await acpkitAvailable();
const DRIVERS: ReadonlyArray<readonly [api: string, factory: DriverFactory]> = [
  ["classes", classDriver],
  ["app", appDriver],
];

type LogLine = { level: string; message: string; fields?: Record<string, unknown> };

interface Session {
  agent: SpawnedAgent;
  host: ClientHost;
  driver: Driver;
  logs: LogLine[];
  sessionId: string;
}

/** Spawns the (official) class agent, connects a client on `impl`, initializes, opens a session; always cleans up. */
async function withAgent(impl: Impl, factory: DriverFactory, body: (session: Session) => Promise<void>): Promise<void> {
  const work = makeTempDir("acp-robust-");
  const agent = spawnFixture("interop-agent-classes", "official", { env: { ACP_NOISE_BYTES: String(NOISE_BYTES) } });
  const host = new ClientHost(work);
  const logs: LogLine[] = [];
  const logger: Logger = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (message: string, fields?: Record<string, unknown>) => logs.push({ level, message, fields }),
    ]),
  ) as unknown as Logger;
  let driver: Driver | undefined;
  try {
    driver = await factory(impl, agent, host, { maxMessageBytes: MAX_MESSAGE_BYTES, logger });
    await within(driver.initialize(), 5000, "initialize");
    const sessionId = await within(driver.newSession(work), 5000, "session/new");
    await body({ agent, host, driver, logs, sessionId });
  } finally {
    driver?.close?.();
    await agent.stop(500);
    host.dispose();
    removeTempDir(work);
  }
}

function problemKinds(driver: Driver): string[] {
  return (driver.tapped ?? []).flatMap((e) => (e.problem ? [(e.problem as { kind: string }).kind] : []));
}

async function noiseConversation({ host, driver, sessionId }: Session): Promise<void> {
  let mark = host.updates.length;
  const response = await within(driver.prompt(sessionId, "noise"), 10_000, 'the "noise" prompt response');
  assert.equal(response.stopReason, "end_turn");
  assert.deepEqual(host.texts(mark, sessionId), ["before", "after"]);
  mark = host.updates.length;
  const next = await within(driver.prompt(sessionId, "stream 3"), 5000, "the next prompt's response");
  assert.equal(next.stopReason, "end_turn");
  assert.deepEqual(host.texts(mark, sessionId), ["chunk 0 ü🙂", "chunk 1 ü🙂", "chunk 2 ü🙂"]);
}

async function loglineConversation({ host, driver, sessionId }: Session): Promise<void> {
  const mark = host.updates.length;
  const response = await within(driver.prompt(sessionId, "logline"), 5000, 'the "logline" prompt response');
  assert.equal(response.stopReason, "end_turn");
  assert.deepEqual(host.texts(mark, sessionId), ["before", "after"]);
}

async function killMidPrompt(session: Session, t: TestContext): Promise<unknown> {
  const { agent, host, driver, sessionId } = session;
  const mark = host.updates.length;
  const running = driver.prompt(sessionId, "slow");
  await host.until(() => host.texts(mark, sessionId).includes("waiting"), 5000, 'the "waiting" update');
  agent.child.kill("SIGKILL");
  const outcome = await within(
    running.then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: error }),
    ),
    5000,
    "the pending prompt to settle after the agent was killed",
  );
  const exit = await within(agent.exited, 5000, "the killed agent to exit");
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(processAlive(agent.child.pid), false, "the agent process is gone");
  if ("resolved" in outcome)
    assert.fail(`the prompt resolved after the agent was killed: ${JSON.stringify(outcome.resolved)}`);
  const error = outcome.rejected as Error & { kind?: string };
  t.diagnostic(`${driver.impl} client, pending prompt rejected with ${error?.name}: ${error?.message}`);
  return error;
}

describe(
  "robustness: the acpkit client over a real, misbehaving agent process",
  { skip: acpkitMissing ? `acpkit is not loadable yet: ${acpkitMissing}` : false },
  () => {
    for (const [api, factory] of DRIVERS) {
      it(
        `${api}: a non-JSON line and an over-long line on the agent's stdout are logged and skipped; the ` +
          `conversation completes`,
        TEST,
        async () => {
          await withAgent("acpkit", factory, async (session) => {
            await noiseConversation(session);
            const { logs, driver } = session;
            const warnings = logs.filter((l) => l.level === "warn").map((l) => l.message);
            assert.ok(
              warnings.some((m) => /not JSON/i.test(m)),
              `a warning names the non-JSON line; warnings: ${JSON.stringify(warnings)}`,
            );
            assert.ok(
              warnings.some((m) => /limit/i.test(m)),
              `a warning names the over-long line; warnings: ${JSON.stringify(warnings)}`,
            );
            assert.ok(driver.tapped, "the acpkit connection has tap()");
            assert.deepEqual(problemKinds(driver), ["parse", "too_large"]);
            const fromClient = session.agent.wire
              .filter((l) => l.from === "client")
              .map((l) => JSON.parse(l.text) as { id?: unknown; error?: unknown });
            assert.deepEqual(
              fromClient.filter((m) => (m.id === null || m.id === undefined ? "error" in m : false)),
              [],
              "a log line or a skipped notification is not answered",
            );
          });
        },
      );

      it(
        `${api}: SIGKILL mid-prompt rejects the pending prompt with a connection-closed error saying why; ` +
          `nothing unhandled, no process left`,
        TEST,
        async (t) => {
          const unhandled: unknown[] = [];
          const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
          process.on("unhandledRejection", onUnhandled);
          try {
            await withAgent("acpkit", factory, async (session) => {
              const error = (await killMidPrompt(session, t)) as Error & { kind?: string; cause?: unknown };
              assert.ok(error instanceof Error, "rejected with an Error");
              assert.equal(error.name, "ConnectionClosedError");
              assert.equal(error.kind, "connection_closed");
              assert.match(error.message, /closed: .{8,}/i, "the message says why the connection closed");
              await within(session.driver.closed, 2000, "the client's connection to report closed");
              await assert.rejects(session.driver.prompt(session.sessionId, "stream 1"), {
                name: "ConnectionClosedError",
              });
            });
            await new Promise((resolve) => setTimeout(resolve, 100));
            assert.deepEqual(unhandled, [], "no unhandled rejection");
          } finally {
            process.off("unhandledRejection", onUnhandled);
          }
        },
      );
    }
  },
);

/** @acpkit/sdk/node, the Node helpers beside the drop-in API. */
const NODE_ENTRY = new URL("../../../src/entries/node.js", import.meta.url).href;

describe(
  "robustness: @acpkit/sdk/node childProcessStream over a killed agent",
  { skip: acpkitMissing ? `acpkit is not loadable yet: ${acpkitMissing}` : false },
  () => {
    it("SIGKILL mid-prompt rejects the pending prompt with a ConnectionClosedError saying why", TEST, async (t) => {
      const { childProcessStream } = (await import(NODE_ENTRY)) as {
        childProcessStream(child: ChildProcess): acp.Stream;
      };
      const sdk = await loadClasses("acpkit");
      const child = spawn(process.execPath, [fixturePath("interop-agent-classes"), "--impl=official"], {
        stdio: ["pipe", "pipe", "ignore"],
      });
      track(child);
      const exited = once(child, "exit");
      try {
        let updates = 0;
        const client: acp.Client = {
          sessionUpdate: () => void updates++,
          requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
        };
        const connection = new sdk.ClientSideConnection(() => client, childProcessStream(child));
        await within(
          connection.initialize({ protocolVersion: sdk.PROTOCOL_VERSION, clientCapabilities: {} }),
          5000,
          "initialize",
        );
        const { sessionId } = await within(
          connection.newSession({ cwd: process.cwd(), mcpServers: [] }),
          5000,
          "session/new",
        );
        const running = connection.prompt({ sessionId, prompt: [{ type: "text", text: "slow" }] }).then(
          (value) => ({ resolved: value }),
          (error: unknown) => ({ rejected: error }),
        );
        const started = Date.now();
        while (updates === 0 && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 5));
        child.kill("SIGKILL");
        const outcome = await within(running, 5000, "the pending prompt to settle");
        if ("resolved" in outcome) assert.fail("the prompt resolved after the agent was killed");
        const error = outcome.rejected as Error;
        t.diagnostic(`childProcessStream: ${error.name}: ${error.message}`);
        assert.equal(error.name, "ConnectionClosedError");
        assert.match(error.message, /closed: .{8,}/i);
        await within(connection.closed, 2000, "the connection to report closed");
      } finally {
        child.kill("SIGKILL");
        if (child.exitCode === null && child.signalCode === null) await exited;
      }
    });
  },
);

/**
 * The official clients facing the same, as pinned (1.9.0's classes, 2.4.0's apps): the baseline acpkit's behaviour
 * is measured against (MIGRATING.md). A non-JSON line is skipped; an over-long line fails the conversation (acpkit
 * skips it and goes on); SIGKILL mid-prompt rejects the pending prompt, saying only that the connection closed.
 * A new official release that behaves otherwise fails here, so the comparison is made again.
 */
describe("the official clients facing the same (the baseline)", () => {
  for (const [api, factory] of DRIVERS) {
    it(
      `${api}: official client, noise on the agent's stdout: a non-JSON line is skipped, an over-long one ` +
        `fails the conversation`,
      TEST,
      async () => {
        await withAgent("official", factory, async (session) => {
          await loglineConversation(session);
          await assert.rejects(noiseConversation(session), (error: Error) => {
            assert.match(error.message, new RegExp(`exceeds the configured ${MAX_MESSAGE_BYTES} byte limit`));
            return true;
          });
        });
      },
    );

    it(
      `${api}: official client, agent SIGKILLed mid-prompt: the pending prompt rejects, "connection closed"`,
      TEST,
      async (t) => {
        await withAgent("official", factory, async (session) => {
          const error = (await killMidPrompt(session, t)) as Error;
          assert.ok(error instanceof Error, `rejected with ${String(error)}`);
          assert.match(error.message, /ACP connection closed/);
        });
      },
    );
  }
});
