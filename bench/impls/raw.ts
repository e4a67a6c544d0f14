/**
 * The raw baseline adapter: JSON over a pipe with `RawPeer`, nothing else.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { runTurn, type AgentSink, type TurnObserver } from "../agent-logic.js";
import {
  commandOf,
  END_TURN,
  INITIALIZE_PARAMS,
  INITIALIZE_RESULT,
  NEW_SESSION_PARAMS,
  promptParams,
  SESSION_ID,
} from "../workloads.js";
import { LineSplitter, RawPeer, StringLineSplitter } from "./raw-peer.js";
import type { BenchClient, ClientHooks, Impl } from "./types.js";

/** Makes `peer` behave as the bench agent. */
function serveAgent(peer: RawPeer, flushed: () => Promise<void>, observer?: TurnObserver): void {
  peer.handlers = {
    request: async (method, params) => {
      switch (method) {
        case "initialize":
          return INITIALIZE_RESULT;
        case "session/new":
          return { sessionId: SESSION_ID };
        case "session/prompt": {
          const sessionId = (params as { sessionId: string }).sessionId;
          const sink: AgentSink = {
            notify: (update) => peer.notify("session/update", { sessionId, update }),
            readTextFile: (path) => peer.request("fs/read_text_file", { sessionId, path }),
            flushed,
          };
          await runTurn(commandOf(params), sink, observer);
          return END_TURN;
        }
        default:
          throw new Error(`method not found: ${method}`);
      }
    },
  };
}

/** Makes `peer` behave as the bench client and does the handshake. */
async function startClient(peer: RawPeer, hooks: ClientHooks, close: () => void): Promise<BenchClient> {
  peer.handlers = {
    notification: (method, params) => {
      if (method === "session/update") hooks.onUpdate((params as { update: { sessionUpdate: string } }).update);
    },
    request: (method, params) => {
      if (method === "fs/read_text_file") return { content: hooks.readTextFile((params as { path: string }).path) };
      throw new Error(`method not found: ${method}`);
    },
  };
  await peer.request("initialize", INITIALIZE_PARAMS);
  const { sessionId } = await peer.request<{ sessionId: string }>("session/new", NEW_SESSION_PARAMS);
  return {
    prompt: (cmd) => peer.request("session/prompt", promptParams(sessionId, cmd)),
    close: () => {
      peer.close();
      close();
    },
  };
}

/** One shared promise per stall, however many writers wait on it (a listener per waiter would be quadratic). */
function drainOf(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }): () => Promise<void> {
  let waiting: Promise<void> | undefined;
  return () => {
    if (stream.writableNeedDrain === false) return Promise.resolve();
    return (waiting ??= new Promise<void>((resolve) =>
      stream.once("drain", () => {
        waiting = undefined;
        resolve();
      }),
    ));
  };
}

export const rawImpl: Impl = {
  name: "raw",
  hasMemory: true,
  agentScript: new URL(`../agents/raw-agent${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
  memoryNote: "agent and client in one process; each line goes stringify -> direct call -> split -> parse",

  async load() {},

  async serveStdio(observer) {
    const out = process.stdout;
    const peer = new RawPeer((line) => out.write(line), drainOf(out));
    const flushed = () =>
      out.writableLength === 0 ? Promise.resolve() : new Promise<void>((resolve) => out.write("", () => resolve()));
    serveAgent(peer, flushed, observer);
    const splitter = new LineSplitter(peer.onLine);
    process.stdin.on("data", (chunk: Buffer) => splitter.push(chunk));
  },

  async connectPipe(child: ChildProcessWithoutNullStreams, hooks) {
    const peer = new RawPeer((line) => child.stdin.write(line), drainOf(child.stdin));
    const splitter = new LineSplitter(peer.onLine);
    child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk));
    return startClient(peer, hooks, () => child.stdin.end());
  },

  async connectMemory(hooks) {
    let open = true;
    // Each side's send is a direct call into the other side's splitter.
    const toClient = new StringLineSplitter((line) => clientPeer.onLine(line));
    const toAgent = new StringLineSplitter((line) => agentPeer.onLine(line));
    const agentPeer: RawPeer = new RawPeer((line) => (open && toClient.push(line), true));
    const clientPeer: RawPeer = new RawPeer((line) => (open && toAgent.push(line), true));
    serveAgent(agentPeer, () => Promise.resolve());
    return startClient(clientPeer, hooks, () => {
      open = false;
      agentPeer.close();
    });
  },
};
