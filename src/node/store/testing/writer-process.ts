/**
 * Test helper: starts `postgres-store-writer.js` as a child process and follows what it prints (acknowledged
 * counts, `leased`, `refused ...`, `closed`). For tests only (not shipped).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "postgres-store-writer.js");

export interface WriterProcess {
  readonly child: ChildProcess;
  readonly name: string;
  /** Records acknowledged so far (their append resolved). */
  readonly acked: number;
  /** The `refused ...` line, once printed. */
  readonly refused: string | undefined;
  readonly lines: readonly string[];
  /** Resolves once a printed line satisfies `check` (or rejects after `timeoutMs`, or when the child exits first). */
  until(check: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves once at least `n` records were acknowledged. */
  ackedAtLeast(n: number, timeoutMs?: number): Promise<void>;
  /** Asks it to stop and close its store (releasing its lease); resolves when it exited. */
  close(): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface WriterOptions {
  readonly leaseTtlMs?: number;
  readonly paceMs?: number;
}

export function startWriter(url: string, sessionId: string, name: string, options: WriterOptions = {}): WriterProcess {
  const child = spawn(
    process.execPath,
    [FIXTURE, url, sessionId, String(options.leaseTtlMs ?? 10_000), String(options.paceMs ?? 0), name],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  const watchers = new Set<() => void>();
  let acked = 0;
  let refused: string | undefined;
  let buffered = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split("\n");
    buffered = complete.pop()!;
    for (const line of complete) {
      lines.push(line);
      if (line.startsWith("ack ")) acked = Number(line.slice(4));
      if (line.startsWith("refused ")) refused = line;
    }
    for (const watcher of [...watchers]) watcher();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve({ code, signal });
      for (const watcher of [...watchers]) watcher();
    }),
  );
  const until = (check: (line: string) => boolean, timeoutMs = 20_000) =>
    new Promise<string>((resolve, reject) => {
      let seen = 0;
      const watcher = () => {
        for (; seen < lines.length; seen++)
          if (check(lines[seen]!)) {
            done();
            return resolve(lines[seen]!);
          }
        if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(
            new Error(`writer ${name} exited before the line awaited; it printed: ${lines.slice(-5).join(" | ")}`),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`writer ${name}: timed out; it printed: ${lines.slice(-5).join(" | ")}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        watchers.delete(watcher);
      };
      watchers.add(watcher);
      watcher();
    });
  return {
    child,
    name,
    get acked() {
      return acked;
    },
    get refused() {
      return refused;
    },
    lines,
    until,
    ackedAtLeast: async (n, timeoutMs) => {
      await until(() => acked >= n, timeoutMs);
    },
    close: async () => {
      child.stdin!.write("close\n");
      await exited;
    },
    exited,
  };
}
