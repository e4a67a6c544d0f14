/**
 * `acp agent` under bursts of fuzzed frames, as a real process with its heap capped at 128 MiB: every burst is 1,000
 * frames at once (session/new, session/list with and without a cwd, prompts to real and unknown sessions, requests
 * built from the schema with their session ids swapped for real ones, frames mutated byte by byte, garbage). Every
 * request of a burst must be answered before the next burst, the agent must survive every burst, and its peak RSS
 * must stay under a stated bound.
 *
 * What a burst used to retain: each `session/list` scanned the whole store directory on its own, so the requests of
 * one burst held every session's metadata hundreds of times at once, and the scans fell behind the bursts (RSS 1.9 GB
 * after 8 bursts, answers a minute late). The store now shares scans (`CoalescedRun`).
 *
 * A longer run: `ACPKIT_FUZZ_BURSTS=50 node --test dist/test/e2e/reference-agent/fuzz-burst.test.js`.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { arbitraryFor, type Defs } from "../../../src/protocol/testing/schema-arbitrary.js";
import { track } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { ACP_CLI } from "../support/programs.js";

const BURSTS = Number(process.env.ACPKIT_FUZZ_BURSTS ?? 6);
const BURST = 1000;
const MiB = 1024 * 1024;
/** The stated bound on the agent's peak RSS over the whole run. */
const PEAK_BOUND = 256 * MiB;
/** How long one burst may take to be answered whole. */
const BURST_MS = 30_000;

const defs = JSON.parse(
  readFileSync(new URL("../../../../schema/v1/schema.unstable.json", import.meta.url), "utf8"),
) as { $defs: Defs };
const SCHEMA_METHODS: Record<string, string> = {
  "session/new": "NewSessionRequest",
  "session/load": "LoadSessionRequest",
  "session/list": "ListSessionsRequest",
  "session/resume": "ResumeSessionRequest",
  "session/set_mode": "SetSessionModeRequest",
  "session/set_config_option": "SetSessionConfigOptionRequest",
  "session/prompt": "PromptRequest",
};
const schemaFrames = fc.oneof(
  ...Object.entries(SCHEMA_METHODS).map(([method, def]) =>
    arbitraryFor(defs.$defs, def).map((params) => ({ method, params: params as Record<string, unknown> })),
  ),
);

/** A deterministic generator of small numbers. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
}

/** `text` with a few bytes changed, cut, repeated or inserted. */
function mutate(text: string, rnd: (n: number) => number): string {
  let out = text;
  for (let k = 1 + rnd(3); k > 0; k--) {
    const at = rnd(out.length + 1);
    const pick = rnd(4);
    if (pick === 0) out = out.slice(0, at) + String.fromCharCode(32 + rnd(95)) + out.slice(at + 1);
    else if (pick === 1) out = out.slice(0, at) + out.slice(at + 1 + rnd(8));
    else if (pick === 2) out = out.slice(0, at) + out.slice(rnd(out.length), rnd(out.length)) + out.slice(at);
    else out = out.slice(0, at) + "[".repeat(rnd(500)) + out.slice(at);
  }
  return out;
}

describe("acp agent: bursts of 1,000 fuzzed frames", { skip: process.platform === "linux" ? false : "/proc" }, () => {
  let root: string;
  let dataDir: string;
  before(() => {
    root = makeTempDir("ref-fuzz-ws-");
    dataDir = makeTempDir("ref-fuzz-data-");
  });
  after(() => {
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it(
    `${BURSTS} bursts: every request answered in time, the agent alive, peak RSS under ${PEAK_BOUND / MiB} MiB`,
    { timeout: BURSTS * (BURST_MS + 10_000) + 30_000 },
    async () => {
      const child = spawn(process.execPath, ["--max-old-space-size=128", ACP_CLI, "agent", "--data-dir", dataDir], {
        stdio: ["pipe", "pipe", "pipe"],
        cwd: root,
        env: { ...process.env, ACP_MODEL_URL: "", ACP_MODEL: "", ACP_MODEL_KEY: "" },
      });
      track(child);
      child.stdin!.on("error", () => {});
      let stderr = "";
      child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr = (stderr + text).slice(-4000)));
      let exit: string | undefined;
      child.once("exit", (code, signal) => (exit = `exit ${code} ${signal}`));
      const answered = new Set<number>();
      const sessions: string[] = [];
      let buffer = "";
      child.stdout!.setEncoding("utf8").on("data", (text: string) => {
        buffer += text;
        for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          const head = /^\{"jsonrpc":"2\.0","id":(\d+),"(result|error)"/.exec(line);
          if (!head) continue;
          answered.add(Number(head[1]));
          const created = /^\{"jsonrpc":"2\.0","id":\d+,"result":\{"sessionId":"([^"]+)"/.exec(line);
          if (created && sessions.length < 64) sessions.push(created[1]!);
        }
      });
      const memory = () => {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
        return { rss: kib("VmRSS"), peak: kib("VmHWM") };
      };
      let id = 0;
      const expected: number[] = [];
      const request = (method: string, params: unknown) => {
        expected.push(++id);
        return JSON.stringify({ jsonrpc: "2.0", id, method, params });
      };
      child.stdin!.write(`${request("initialize", { protocolVersion: 1, clientCapabilities: {} })}\n`);
      const report: string[] = [];
      try {
        for (let burst = 0; burst < BURSTS; burst++) {
          const rnd = random(burst + 1);
          const generated = fc.sample(schemaFrames, { numRuns: BURST, seed: burst + 1 });
          const lines: string[] = [];
          for (let i = 0; i < BURST; i++) {
            const pick = rnd(20);
            const known = sessions.length > 0 ? sessions[rnd(sessions.length)]! : "sess_unknown";
            if (pick < 4) lines.push(request("session/new", { cwd: root, mcpServers: [] }));
            else if (pick < 7) lines.push(request("session/list", rnd(2) ? {} : { cwd: root }));
            else if (pick < 9)
              lines.push(
                request("session/prompt", { sessionId: known, prompt: [{ type: "text", text: `fuzz ${i}` }] }),
              );
            else if (pick < 16) {
              const { method, params } = generated[i]!;
              lines.push(request(method, rnd(2) ? { ...params, sessionId: known, cwd: root } : params));
            } else if (pick < 19) {
              // A mutated frame: answered if it still parses with an id, else a -32700 or nothing at all.
              const text = mutate(request("session/list", { cwd: root }), rnd);
              expected.pop();
              lines.push(text);
            } else lines.push(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"${known}"}}`);
          }
          child.stdin!.write(`${lines.join("\n")}\n`);
          const started = Date.now();
          while (expected.some((n) => !answered.has(n)) && Date.now() - started < BURST_MS && exit === undefined)
            await new Promise((resolve) => setTimeout(resolve, 50));
          const missing = expected.filter((n) => !answered.has(n));
          const { rss, peak } = memory();
          report.push(
            `burst ${burst + 1}: ${Date.now() - started} ms, RSS ${(rss / MiB).toFixed(0)} MiB (peak ${(peak / MiB).toFixed(0)})`,
          );
          assert.equal(exit, undefined, `the agent died at burst ${burst + 1}: ${exit}\n${stderr}`);
          assert.deepEqual(
            missing.slice(0, 5),
            [],
            `burst ${burst + 1}: ${missing.length} requests unanswered after ${BURST_MS} ms`,
          );
          expected.length = 0;
        }
        const { peak } = memory();
        process.stderr.write(`fuzz-burst: ${report.join("; ")}\n`);
        assert.ok(peak < PEAK_BOUND, `peak RSS ${(peak / MiB).toFixed(0)} MiB: ${report.join("; ")}`);
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});
