/**
 * Backpressure over real pipes (issue 9, item 6): an acpkit agent talking to a client that does not read its stdout
 * neither buffers without bound nor keeps reading requests whose answers it cannot deliver. 1 GiB is offered each
 * time; the agent's RSS must grow by less than 192 MiB (of 1 GiB offered). Nothing here waits on a clock: the agent
 * reports over IPC, and the test acts on those reports and on its own reads.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const fromSource = import.meta.url.endsWith(".ts");
const fixture = fileURLToPath(new URL(`./fixtures/backpressure-peer.${fromSource ? "ts" : "js"}`, import.meta.url));
const nodeArgs = fromSource ? ["--import", "tsx", fixture] : [fixture];
const MiB = 1024 * 1024;
/**
 * The growth allowed while 1 GiB is offered: the 64 MiB cap of queued bytes plus the strings and garbage behind it
 * (measured 18-100 MiB; a loaded machine collects later). Unbounded buffering would grow by the whole gigabyte.
 */
const RSS_BOUND = 192 * MiB;

interface Report {
  rss: number;
  peakRss: number;
  baseline: number;
  [key: string]: unknown;
}

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
});

function start(flag: string): { child: ChildProcess; next: (match: (report: Report) => boolean) => Promise<Report> } {
  const child = spawn(process.execPath, [...nodeArgs, flag], { stdio: ["pipe", "pipe", "inherit", "ipc"] });
  children.push(child);
  const reports: Report[] = [];
  const waiters: Array<() => void> = [];
  child.on("message", (report: Report) => {
    reports.push(report);
    for (const wake of waiters.splice(0)) wake();
  });
  child.on("exit", () => {
    for (const wake of waiters.splice(0)) wake();
  });
  /** The first report from now on that `match` accepts. */
  let seen = 0;
  const next = async (match: (report: Report) => boolean): Promise<Report> => {
    for (;;) {
      while (seen < reports.length) {
        const report = reports[seen++]!;
        if (match(report)) return report;
      }
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the agent exited (${child.exitCode ?? child.signalCode})`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, next };
}

describe("an agent whose client does not read its stdout", () => {
  it("awaited session updates wait for the reader: never more than a few MiB ahead of it, RSS bounded", async () => {
    const { child, next } = start("--stream-awaited");
    let read = 0;
    let worstLead = 0;
    child.on("message", (report: Report) => {
      if (typeof report.sent !== "number") return;
      // The updates the agent saw resolve versus what the client has read so far.
      worstLead = Math.max(worstLead, (report.sent as number) * MiB - read);
    });
    const READ_BUDGET = 32 * MiB;
    const stdout = child.stdout!;
    const budgetRead = new Promise<void>((resolve) => {
      stdout.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= READ_BUDGET) {
          stdout.pause();
          resolve();
        }
      });
    });
    await budgetRead;
    child.send({ report: true });
    const report = await next((r) => r.report === true);
    const sent = (report.sent as number | undefined) ?? 0;
    assert.ok(sent <= 40, `the agent ran ${sent} MiB ahead of a reader that took 32 MiB and stopped`);
    assert.ok(sent >= 16, `the agent streamed only ${sent} MiB while the client read 32 MiB`);
    assert.ok(worstLead <= 8 * MiB, `the agent was ${worstLead} bytes ahead of its reader at one point`);
    assert.ok(report.peakRss - report.baseline < RSS_BOUND, `RSS grew by ${report.peakRss - report.baseline} bytes`);
    child.kill("SIGKILL");
  });

  it("un-awaited session updates are refused at maxBufferedBytes with OutputBacklogError, RSS bounded", async () => {
    const { child, next } = start("--stream-unawaited");
    const report = await next((r) => r.done === true);
    const accepted = report.accepted as number;
    const refused = report.refused as number;
    assert.equal(accepted + refused <= 1024, true);
    assert.ok(refused >= 900, `only ${refused} of 1,024 un-awaited 1 MiB updates were refused`);
    assert.match(report.message as string, /maxBufferedBytes/);
    assert.match(report.message as string, /Await your sends/);
    assert.ok(report.peakRss - report.baseline < RSS_BOUND, `RSS grew by ${report.peakRss - report.baseline} bytes`);
    child.kill("SIGKILL");
  });
});

describe("an agent flooded with requests by a client that does not read the answers", () => {
  it(
    "stops reading its stdin once the answers back up, answers " + "everything once the client reads, RSS bounded",
    async () => {
      const { child, next } = start("--big-replies");
      await next((r) => r.ready === true);
      const stdin = child.stdin!;
      let paused: Report | undefined;
      const pausedReport = next((r) => r.paused === true).then((r) => (paused = r));
      // Offer up to 1 GiB of answers (16,384 requests of 64 KiB answers), as fast as the pipe takes them.
      let written = 0;
      const batch = 64;
      while (paused === undefined && written < 16_384) {
        let text = "";
        for (let i = 0; i < batch; i++) text += `{"jsonrpc":"2.0","id":${written + i},"method":"_big","params":{}}\n`;
        written += batch;
        if (!stdin.write(text)) await Promise.race([once(stdin, "drain"), pausedReport]);
      }
      assert.ok(paused, `the agent read all ${written} requests without pausing its input`);
      child.send({ report: true });
      const report = await next((r) => r.report === true);
      const answered = report.answered as number;
      assert.ok(
        answered * 64 * 1024 <= 16 * MiB,
        `the agent answered ${answered} requests (${answered * 64} KiB) to a client that read none`,
      );
      assert.ok(written < 16_384, "the client could write 1 GiB worth of requests");
      assert.ok(report.peakRss - report.baseline < RSS_BOUND, `RSS grew by ${report.peakRss - report.baseline} bytes`);

      // Now the client reads: the agent resumes and every request written gets exactly one answer.
      const seen = new Set<number>();
      let tail = "";
      const allAnswered = new Promise<void>((resolve) => {
        child.stdout!.on("data", (chunk: Buffer) => {
          const lines = (tail + chunk.toString("utf8")).split("\n");
          tail = lines.pop()!;
          for (const line of lines) {
            const id = (JSON.parse(line) as { id: number }).id;
            assert.ok(!seen.has(id), `request ${id} answered twice`);
            seen.add(id);
          }
          if (seen.size === written) resolve();
        });
      });
      await allAnswered;
      assert.equal(seen.size, written);
      child.kill("SIGKILL");
    },
  );
});
