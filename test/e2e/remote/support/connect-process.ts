/**
 * `acp connect` as an editor runs it: a real child process whose stdin/stdout are the agent's pipes (the wire
 * recorded line by line), and a 1.x `Client` serving files, terminals and permissions with the interop suite's
 * real `ClientHost`, to drive it with `ClientSideConnection`.
 */
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { ndJsonStream, type Client } from "../../../../src/index.js";
import { ACP } from "../../exec/support.js";
import { lineRecorder, track, type WireLine } from "../../interop/support/spawn.js";
import type { ClientHost } from "./client.js";

/** Starts `acp connect ...args`; `stream` is the editor's end of its stdio. */
export function startConnect(args: string[]) {
  const child = spawn(process.execPath, [ACP, "connect", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  track(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
    if (process.env.REMOTE_VERBOSE) process.stderr.write(text);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const wire: WireLine[] = [];
  const input = (Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>).pipeThrough(lineRecorder("agent", wire));
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => child.stdin!.write(chunk, (error) => (error ? reject(error) : resolve()))),
    close: () => void child.stdin!.end(),
  });
  child.stdin!.on("error", () => {});
  return { child, exited, wire, stderr: () => stderr, stream: ndJsonStream(output, input) };
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
