/**
 * `acp tap` in front of a protocol v2 (draft) agent: the tap follows the version the `initialize` settles on and
 * checks the conversation against v2's schema and the rules that hold in v2, so a correct v2 conversation (prompt
 * acknowledged, turn reported by state_update, permission, cancel) has no findings, and the cassette holds it all.
 * The agent is the interop fixture on acpkit and on the official SDK 2.4.0; the client is acpkit's v2 client.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { after, test } from "node:test";
import { client, ndJsonStream } from "../../../src/entries/experimental/v2.js";
import { readCassette } from "../../../src/wire/index.js";
import { fixturePath } from "../interop/support/spawn.js";
import { ACP, tempDir } from "./support.js";

const dir = tempDir("acpkit-tap-v2-");
after(() => rmSync(dir, { recursive: true, force: true }));

for (const impl of ["acpkit", "official"] as const) {
  test(
    `a v2 conversation through acp tap (${impl} agent): no findings, every frame in the cassette`,
    { timeout: 60_000 },
    async () => {
      const report = join(dir, `report-${impl}.ndjson`);
      const trace = join(dir, `trace-${impl}.ndjson`);
      const tap = spawn(
        process.execPath,
        [
          ACP,
          "tap",
          "--report",
          report,
          "--trace",
          trace,
          "--",
          process.execPath,
          fixturePath("interop-agent-v2"),
          `--impl=${impl}`,
        ],
        {
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stderr = "";
      tap.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
      const done = new Promise<number | null>((resolve) => tap.once("close", (code) => resolve(code)));
      const stream = ndJsonStream(
        Writable.toWeb(tap.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(tap.stdout) as ReadableStream<Uint8Array>,
      );
      const app = client().onRequest("session/request_permission", () => ({
        outcome: { outcome: "selected", optionId: "allow" },
      }));
      await app.connectWith(stream, async (ctx) => {
        await ctx.request("initialize", {
          protocolVersion: 2,
          info: { name: "tap-v2", version: "1" },
          capabilities: {},
        });
        const session = await ctx.buildSession(dir).start();
        await session.prompt("stream 20");
        assert.equal((await session.readTextUntilIdle(AbortSignal.timeout(20_000))).split(";").length, 21);
        await session.prompt("permission");
        assert.equal(await session.readTextUntilIdle(AbortSignal.timeout(20_000)), "permission: selected allow");
        await session.prompt("slow");
        for (;;) {
          const message = await session.nextUpdate(AbortSignal.timeout(20_000));
          if (message.kind === "session_update" && message.update.sessionUpdate === "agent_message_chunk") break;
        }
        await ctx.notify("session/cancel", { sessionId: session.sessionId });
        for (;;) if ((await session.nextUpdate(AbortSignal.timeout(20_000))).kind === "stop") break;
        session.dispose();
      });
      tap.stdin.end();
      assert.equal(await done, 0, stderr);
      assert.equal(
        readFileSync(report, "utf8"),
        "",
        `findings on a correct v2 conversation:\n${readFileSync(report, "utf8")}`,
      );
      const cassette = readCassette(readFileSync(trace, "utf8"));
      const frames = cassette.entries;
      assert.ok(frames.length > 40, `the cassette holds ${frames.length} frames`);
    },
  );
}
