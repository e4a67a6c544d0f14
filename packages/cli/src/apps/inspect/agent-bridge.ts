/**
 * A lane the page drives: its client socket (`/acp`, one JSON-RPC message per text frame, as the WebSocket transport
 * carries them) bridged to an agent process the inspector starts for it (own process group, stopped with the lane).
 * Every byte each side writes is recorded on the lane exactly as it crossed the agent's pipes: the page's frames as
 * the line the agent reads, the agent's output as it wrote it (non-JSON lines included).
 */
import { launchAgent, type LaunchedAgent } from "@acpkit/sdk/node";
import { LineSplitter } from "@acpkit/sdk/wire";
import type { LaneHandle } from "./lane-hub.js";

/** The page's end of a lane: a WebSocket as `ws` gives it. */
export interface PageSocket {
  send(data: string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  readonly bufferedAmount: number;
  on(event: "message", listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

export interface AgentBridgeOptions {
  argv: readonly string[];
  cwd: string;
  env?: Record<string, string>;
}

/** The page's socket holds at most this many unsent bytes before the agent's output is no longer read. */
const HIGH_WATER = 8 * 1024 * 1024;
const MAX_LINE = 64 * 1024 * 1024;

/** Runs one driven lane until either end goes away; resolves when the agent has stopped. */
export async function bridgeAgent(socket: PageSocket, lane: LaneHandle, options: AgentBridgeOptions): Promise<void> {
  let agent: LaunchedAgent;
  try {
    agent = await launchAgent({
      argv: options.argv,
      cwd: options.cwd,
      ...(options.env ? { extraEnv: options.env } : {}),
      onStderrLine: (line) => lane.stderr(line),
    });
  } catch (error) {
    const reason = `the agent did not start: ${(error as Error).message}`;
    lane.close(reason);
    socket.close(1011, reason.slice(0, 120));
    return;
  }
  const child = agent.child;
  const stdout = child.stdout!;
  const stdin = child.stdin!;
  const encoder = new TextEncoder();
  let socketOpen = true;

  const splitter = new LineSplitter(MAX_LINE, {
    line: (text) => {
      if (!socketOpen) return;
      socket.send(text);
    },
    tooLarge: (bytes) => lane.stderr(`(inspector) the agent wrote a line of ${bytes} bytes; not passed to the page`),
  });
  stdout.on("data", (chunk: Buffer) => {
    lane.bytes("agent", chunk);
    splitter.push(chunk);
    if (socket.bufferedAmount > HIGH_WATER) {
      stdout.pause();
      const resume = setInterval(() => {
        if (!socketOpen || socket.bufferedAmount < HIGH_WATER / 2) {
          clearInterval(resume);
          stdout.resume();
        }
      }, 5);
    }
  });
  stdout.once("end", () => {
    splitter.end();
    lane.end("agent");
    if (socketOpen) socket.close(1000, "the agent's output ended");
  });
  stdin.on("error", () => {});

  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    // A browser's socket cannot be paused: the agent's stdin buffers what the page sends (a person's prompts).
    const line = encoder.encode(`${textOf(data)}\n`);
    lane.bytes("client", line);
    stdin.write(line);
  });
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => {
      socketOpen = false;
      resolve();
    });
    socket.on("error", () => {});
  });

  await Promise.race([closed, agent.exited]);
  lane.end("client");
  const status = await agent.stop();
  lane.close(
    status.signal ? `the agent was stopped (${status.signal})` : `the agent exited with code ${status.code ?? "?"}`,
  );
  if (socketOpen) socket.close(1000, "the agent exited");
}

/** The text of a `ws` message. */
export function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}
