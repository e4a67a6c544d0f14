/**
 * Spawning interop fixtures as real child processes (`process.execPath`, real pipes), with the wire recorded in
 * both directions and every child killed when the test process exits, whatever happened.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Impl } from "./impl.js";

/** One line seen on the wire, by who wrote it. */
export interface WireLine {
  from: "agent" | "client";
  time: number;
  text: string;
}

export interface SpawnedAgent {
  readonly child: ChildProcess;
  /** Bytes to the agent's stdin (recorded): pass as ndJsonStream's first argument. */
  readonly output: WritableStream<Uint8Array>;
  /** Bytes from the agent's stdout (recorded): pass as ndJsonStream's second argument. */
  readonly input: ReadableStream<Uint8Array>;
  /** Every complete line in both directions, in the order each side wrote them. */
  readonly wire: WireLine[];
  /** The agent's stderr, for diagnostics. */
  readonly stderr: () => string;
  /** Settles when the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the agent's stdin, waits up to `graceMs` for it to exit, then SIGKILLs it. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Kills `child` (SIGKILL) if it is still running when this process exits. */
export function track(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
}

/** Where a fixture's compiled JavaScript is (dist/test/e2e/fixtures/<name>.js). */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/${name}.js`, import.meta.url));
}

/** A pass-through byte stream that records each complete line it carries. */
export function lineRecorder(from: WireLine["from"], wire: WireLine[]): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let parts: string[] = [];
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let text = decoder.decode(chunk, { stream: true });
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        parts.push(text.slice(0, newline));
        wire.push({ from, time: Date.now(), text: parts.join("") });
        parts = [];
        text = text.slice(newline + 1);
        newline = text.indexOf("\n");
      }
      if (text.length > 0) parts.push(text);
      controller.enqueue(chunk);
    },
    flush() {
      if (parts.length > 0) wire.push({ from, time: Date.now(), text: parts.join("") });
    },
  });
}

/**
 * The child's stdin as a web sink. Not `Writable.toWeb`: Node 20's adapter throws an uncaught TypeError
 * ("reading 'error'") when the Node stream is ended from both sides (the web close and our stop()).
 */
function stdinSink(child: ChildProcess): WritableStream<Uint8Array> {
  const stdin = child.stdin!;
  const usable = () => !stdin.writableEnded && !stdin.destroyed;
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (!usable()) return reject(new Error("the agent's stdin is closed"));
        stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
    close: () => {
      if (usable()) stdin.end();
    },
    abort: () => {
      if (usable()) stdin.end();
    },
  });
}

export interface SpawnOptions {
  /** Extra environment for the fixture. */
  env?: Record<string, string>;
  /** Extra command-line arguments after `--impl=...`. */
  args?: readonly string[];
  /** Echo the agent's stderr to ours (also on with INTEROP_VERBOSE=1). */
  echoStderr?: boolean;
}

export function spawnFixture(name: string, impl: Impl, options: SpawnOptions = {}): SpawnedAgent {
  const child = spawn(process.execPath, [fixturePath(name), `--impl=${impl}`, ...(options.args ?? [])], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    child.once("error", () => {
      live.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  child.stdin!.on("error", () => {});
  child.stdout!.on("error", () => {});
  let stderrText = "";
  const echo = options.echoStderr === true || process.env.INTEROP_VERBOSE === "1";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    stderrText += text;
    if (echo) process.stderr.write(text);
  });

  const wire: WireLine[] = [];
  const fromAgent = lineRecorder("agent", wire);
  const input = (Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>).pipeThrough(fromAgent);
  const toAgent = lineRecorder("client", wire);
  void toAgent.readable.pipeTo(stdinSink(child)).catch(() => {});

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 2000): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        if (!child.stdin!.writableEnded) child.stdin!.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  return { child, output: toAgent.writable, input, wire, stderr: () => stderrText, exited, stop };
}

/** Whether a process with this pid still exists. */
export function processAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Rejects after `ms` with a message saying what was awaited. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
