/**
 * Shared sessions, fanned out: one session of one agent (`acp serve`'s multiplexer: `listenAcp` with
 * `sharedSessions`, in a child process), its own client driving a turn of N chunks over WebSocket, and 0, 1, 10 or
 * 100 observers attached (`session/attach`, role observer, `historyPolicy: "none"`) over WebSocket, all in this
 * process as plain `ws` clients that only count frames (so the figures are the server's, not a client library's).
 * Per row, in the same run: the agent's rate (chunks/s until its client has the prompt's answer) and each
 * observer's throughput (chunks/s until it has all N), median and slowest; plus a row with sharing off.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { fmtRate } from "./stats.js";

export interface FanoutRow {
  readonly observers: number;
  readonly sharing: boolean;
  readonly chunks: number;
  /** The agent's rate, chunks/s (median rep). */
  readonly agentRate: number;
  /** Per observer, chunks/s (median rep): the median observer and the slowest. */
  readonly observerMedian: number | undefined;
  readonly observerSlowest: number | undefined;
  readonly reps: number;
}

const SERVER = fileURLToPath(new URL("./fanout-server.js", import.meta.url));

async function startServer(sharing: boolean): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER, "--serve", ...(sharing ? [] : ["--no-share"])], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /url (\S+)\n/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the fan-out server exited (${code})`)));
  });
  return { url: url.replace(/^http/, "ws"), child };
}

/** A raw client: one message per frame; answers by id, and a count of chunk frames. */
class RawClient {
  chunks = 0;
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (message: any) => void>();
  #target = Infinity;
  #reached: (() => void) | undefined;
  reachedAt = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on("message", (data: Buffer) => {
      const text = data.toString();
      if (text.includes('"agent_message_chunk"')) {
        if (++this.chunks === this.#target) {
          this.reachedAt = performance.now();
          this.#reached?.();
        }
        return;
      }
      if (!text.includes('"result"') && !text.includes('"error"')) return;
      const message = JSON.parse(text);
      this.#waiting.get(message.id)?.(message);
    });
  }

  static open(url: string): Promise<RawClient> {
    const socket = new WebSocket(url, ["acp"]);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  request(id: number, method: string, params: unknown): Promise<any> {
    const answer = new Promise<any>((resolve) => this.#waiting.set(id, resolve));
    this.#socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer.then((message) => {
      if (message.error) throw new Error(`${method}: ${message.error.message}`);
      return message.result;
    });
  }

  /** Resolves once `count` chunks arrived (counting from now). */
  expect(count: number): Promise<void> {
    this.chunks = 0;
    this.#target = count;
    return new Promise((resolve) => (this.#reached = resolve));
  }

  close(): void {
    this.#socket.close();
  }
}

const initialize = (client: RawClient) =>
  client.request(0, "initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
    clientInfo: { name: "fanout", version: "1" },
  });

async function rep(
  url: string,
  observers: number,
  chunks: number,
): Promise<{ agentRate: number; observerRates: number[] }> {
  const host = await RawClient.open(url);
  await initialize(host);
  const { sessionId } = await host.request(1, "session/new", { cwd: "/tmp", mcpServers: [] });
  const watchers = await Promise.all(Array.from({ length: observers }, () => RawClient.open(url)));
  await Promise.all(watchers.map((watcher) => initialize(watcher)));
  await Promise.all(
    watchers.map((watcher) =>
      watcher.request(1, "session/attach", { sessionId, role: "observer", historyPolicy: "none" }),
    ),
  );
  const arrivals = watchers.map((watcher) => watcher.expect(chunks));
  const started = performance.now();
  await host.request(2, "session/prompt", { sessionId, prompt: [{ type: "text", text: `stream ${chunks}` }] });
  const agentRate = chunks / ((performance.now() - started) / 1000);
  await Promise.all(arrivals);
  const observerRates = watchers.map((watcher) => chunks / ((watcher.reachedAt - started) / 1000));
  for (const client of [host, ...watchers]) client.close();
  return { agentRate, observerRates };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Runs the rows: sharing off with no observer, then 0, 1, 10, 100 observers; `reps` measured reps each. */
export async function runFanoutBench(options: {
  quick: boolean;
  reps: number;
  progress: (line: string) => void;
}): Promise<FanoutRow[]> {
  const chunks = options.quick ? 2_000 : 20_000;
  const rows: FanoutRow[] = [];
  const plan: [boolean, number][] = [
    [false, 0],
    [true, 0],
    [true, 1],
    [true, 10],
    [true, 100],
  ];
  for (const [sharing, observers] of plan) {
    const server = await startServer(sharing);
    try {
      await rep(server.url, Math.min(observers, 1), Math.max(100, chunks / 10)); // warm-up
      const results = [];
      for (let i = 0; i < options.reps; i++) results.push(await rep(server.url, observers, chunks));
      results.sort((a, b) => a.agentRate - b.agentRate);
      const mid = results[Math.floor((results.length - 1) / 2)]!;
      const row: FanoutRow = {
        observers,
        sharing,
        chunks,
        agentRate: mid.agentRate,
        observerMedian: observers > 0 ? median(mid.observerRates) : undefined,
        observerSlowest: observers > 0 ? Math.min(...mid.observerRates) : undefined,
        reps: options.reps,
      };
      rows.push(row);
      options.progress(
        `fanout sharing=${sharing} observers=${observers}: agent ${fmtRate(row.agentRate)}/s` +
          (row.observerMedian === undefined ? "" : `, per observer ${fmtRate(row.observerMedian)}/s`),
      );
    } finally {
      server.child.stdin!.end();
      await new Promise((resolve) => server.child.once("exit", resolve));
    }
  }
  return rows;
}

export function printFanoutReport(rows: readonly FanoutRow[], out: (line: string) => void): void {
  if (rows.length === 0) return;
  out("");
  out(
    `shared sessions, fan-out (WebSocket, ${rows[0]!.chunks} chunks per turn, observers attached with ` +
      `historyPolicy none; median rep of ${rows[0]!.reps}):`,
  );
  out("| observers | sharing | agent chunks/s | per observer (median) | per observer (slowest) | total delivered/s |");
  out("| --------- | ------- | -------------- | --------------------- | ---------------------- | ----------------- |");
  for (const row of rows) {
    const total = row.agentRate + (row.observerMedian ?? 0) * row.observers;
    out(
      `| ${row.observers} | ${row.sharing ? "on" : "off"} | ${fmtRate(row.agentRate)} | ` +
        `${row.observerMedian === undefined ? "-" : fmtRate(row.observerMedian)} | ` +
        `${row.observerSlowest === undefined ? "-" : fmtRate(row.observerSlowest)} | ${fmtRate(total)} |`,
    );
  }
}
