/**
 * What strangers cost `acp serve`: 200 sockets at once, without the token (or with a wrong path, a foreign Host or
 * Origin), each announcing a 16 MiB body and sending it slowly (1 MiB at once, then 64 KiB every 250 ms, reconnecting
 * when the server closes them), while a client with the token runs a whole turn. The server's peak resident memory
 * (VmHWM) stays within a stated bound of where it started: it refuses from the headers and reads no body for them.
 * Before the fix it read every body first: 30 such sockets took it from 66 MB to 562 MB.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { acpkitHttp } from "./support/client-transports.js";
import { memoryOf, openRaw, requestHead, type RawSocket } from "./support/raw-socket.js";
import { remoteClient } from "./support/remote-client.js";
import { fixtureAgentCommand, startServe, type ServeProcess } from "./support/serve-process.js";

const TOKEN = "memory-token";
const MiB = 1024 * 1024;
/** The stated bound: the server's peak RSS grows by less than this while the strangers push. */
const BOUND = 64 * MiB;
const STRANGERS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(
  "acp serve: strangers sending 16 MiB bodies slowly",
  { skip: process.platform === "linux" ? false : "/proc" },
  () => {
    let serve: ServeProcess;
    let work: string;
    before(async () => {
      work = makeTempDir("acp-admission-memory-");
      serve = await startServe(["--token", TOKEN, "--agent", fixtureAgentCommand(), "--grace", "0"]);
    });
    after(async () => {
      await serve.stop();
      removeTempDir(work);
    });

    it(
      `${STRANGERS} unauthenticated sockets: peak RSS grows by under ${BOUND / MiB} MiB; a client with the token completes a turn`,
      { timeout: 120_000 },
      async () => {
        const pid = serve.child.pid!;
        const port = Number(new URL(serve.url).port);
        const host = `127.0.0.1:${port}`;
        // Warm the server up (one turn) so the baseline holds what any client costs.
        const warm = await remoteClient(
          acpkitHttp.open({ url: serve.url, webSocketUrl: serve.webSocketUrl, token: TOKEN }),
          work,
          "acpkit",
        );
        await warm.initialize();
        await warm.prompt(await warm.newSession(work), "warm up");
        warm.close();
        await sleep(500);
        const baseline = memoryOf(pid);

        const heads = [
          requestHead("POST", "/acp", {
            Host: host,
            "Content-Type": "application/json",
            "Content-Length": String(16 * MiB),
          }),
          requestHead("POST", "/elsewhere", {
            Host: host,
            "Content-Type": "application/json",
            "Content-Length": String(16 * MiB),
          }),
          requestHead("POST", "/acp", {
            Host: `evil.example:${port}`,
            "Content-Type": "application/json",
            "Content-Length": String(16 * MiB),
          }),
          requestHead("POST", "/acp", {
            Host: host,
            Origin: "https://evil.example",
            "Content-Type": "application/json",
            "Content-Length": String(16 * MiB),
          }),
        ];
        const burst = Buffer.alloc(MiB, 0x20);
        const drip = Buffer.alloc(64 * 1024, 0x20);
        let stopped = false;
        let connections = 0;
        let bytesSent = 0;
        const stranger = async (index: number): Promise<void> => {
          while (!stopped) {
            let socket: RawSocket;
            try {
              socket = await openRaw(port);
            } catch {
              await sleep(200);
              continue;
            }
            connections++;
            socket.write(heads[index % heads.length]!);
            socket.write(burst);
            bytesSent += burst.length;
            let sent = burst.length;
            while (!stopped && !socket.closed && sent < 16 * MiB) {
              await sleep(250);
              // Slowly, and only what the socket takes: the strangers hold no backlog of their own.
              if (socket.socket.writableNeedDrain) continue;
              socket.write(drip);
              bytesSent += drip.length;
              sent += drip.length;
            }
            socket.destroy();
            await sleep(1000);
          }
        };
        let peak = baseline.peak;
        const sampler = setInterval(() => {
          try {
            peak = Math.max(peak, memoryOf(pid).peak);
          } catch {
            // exited
          }
        }, 100);
        const strangers = Array.from({ length: STRANGERS }, (_, index) => stranger(index));
        try {
          await sleep(2000);
          const client = await remoteClient(
            acpkitHttp.open({ url: serve.url, webSocketUrl: serve.webSocketUrl, token: TOKEN }),
            work,
            "acpkit",
          );
          await client.initialize();
          const sessionId = await client.newSession(work);
          assert.equal((await client.prompt(sessionId, "hello under load")).stopReason, "end_turn");
          client.close();
          await sleep(4000);
        } finally {
          stopped = true;
          clearInterval(sampler);
          await Promise.all(strangers);
        }
        peak = Math.max(peak, memoryOf(pid).peak);
        const growth = peak - baseline.rss;
        const report = `baseline RSS ${(baseline.rss / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB (+${(growth / MiB).toFixed(1)}); ${connections} stranger connections offered ${(bytesSent / MiB).toFixed(0)} MiB of body`;
        process.stderr.write(`admission-memory: ${report}\n`);
        assert.ok(connections >= STRANGERS, report);
        assert.ok(growth < BOUND, report);
      },
    );
  },
);
