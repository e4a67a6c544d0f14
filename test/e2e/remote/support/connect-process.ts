/**
 * `acp connect` as an editor runs it: a real child process whose stdin/stdout are the agent's pipes (the wire
 * recorded line by line), and a 1.x `Client` serving files, terminals and permissions with the interop suite's
 * real `ClientHost`, to drive it with `ClientSideConnection`.
 */
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { ndJsonStream, type Client } from "../../../../src/entries/index.js";
import { ACP } from "../../exec/support.js";
import { lineRecorder, track, type WireLine } from "../../interop/support/spawn.js";
import type { ClientHost } from "./client.js";

/**
 * Starts `acp connect ...args`; `stream` is the editor's end of its stdio.
 *
 * Stdout and stderr are two pipes, read by this process in whatever order its event loop sees them: a line the
 * bridge wrote to stderr before a frame on stdout can arrive here after that frame (measured: the reattach line
 * came 1 ms after the session notice written right after it). So a test waits for a stderr line with
 * `waitForStderr`, never reads `stderr()` at the moment a frame arrived. `exited` resolves on `close` (the exit
 * code once the pipes are drained too), so `stderr()` is complete after it.
 */
export function startConnect(args: string[]) {
  const child = spawn(process.execPath, [ACP, "connect", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  track(child);
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
    for (const wake of listeners) wake();
    if (process.env.REMOTE_VERBOSE) process.stderr.write(text);
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  /** Resolves with the first match of `pattern` in stderr; rejects after `ms`, or when the bridge ended without it. */
  const waitForStderr = (pattern: RegExp, ms = 20_000): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const match = stderr.match(pattern);
        if (match) {
          cleanup();
          resolve(match);
        }
      };
      const fail = (why: string) => {
        cleanup();
        reject(new Error(`acp connect: no ${pattern} on stderr ${why}; stderr:\n${stderr}`));
      };
      const timer = setTimeout(() => fail(`within ${ms} ms`), ms);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exited.then(() => {
        check();
        if (listeners.has(check)) fail("before it exited");
      });
      check();
    });
  const wire: WireLine[] = [];
  const input = (Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>).pipeThrough(
    lineRecorder("agent", wire),
  );
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => child.stdin!.write(chunk, (error) => (error ? reject(error) : resolve()))),
    close: () => void child.stdin!.end(),
  });
  child.stdin!.on("error", () => {});
  return { child, exited, wire, stderr: () => stderr, waitForStderr, stream: ndJsonStream(output, input) };
}

/** A `Client` that hands every request to `host`. */
export function hostClient(host: ClientHost): Client {
  return {
    requestPermission: (params) => host.requestPermission(params),
    sessionUpdate: async (params) => host.sessionUpdate(params),
    readTextFile: (params) => host.readTextFile(params),
    writeTextFile: (params) => host.writeTextFile(params),
    createTerminal: async (params) => host.terminals.create(params),
    terminalOutput: async (params) => host.terminals.output(params),
    waitForTerminalExit: (params) => host.terminals.waitForExit(params),
    killTerminal: async (params) => host.terminals.kill(params),
    releaseTerminal: async (params) => host.terminals.release(params),
  };
}
