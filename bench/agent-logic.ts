/**
 * What the bench agent does in a prompt turn, written once for all three implementations. An implementation only
 * supplies an `AgentSink` (how to send a `session/update` and how to call `fs/read_text_file`).
 */
import { chunkUpdate, mixedUpdate, readPath, type Command } from "./workloads.js";

export interface AgentSink {
  /**
   * Sends one `session/update` for the current session. Returns a promise when the implementation wants the sender
   * to wait (the SDKs always do; raw only when the pipe asked for a drain), or nothing.
   */
  notify(update: object): Promise<unknown> | void;
  /** Calls `fs/read_text_file` on the client. */
  readTextFile(path: string): Promise<{ content: string }>;
  /** Resolves when everything sent so far has left the process (raw only; the SDKs' last notify promise suffices). */
  flushed?(): Promise<void>;
}

/** Hooks the child process uses to measure itself; in-process (memory) runs pass none. */
export interface TurnObserver {
  /** The `gc` command: collect garbage, record the idle RSS baseline, start a new peak window. */
  idle(): void;
  turnStart(cmd: Command): void;
  turnEnd(cmd: Command, info: Record<string, unknown>): void;
}

export async function runTurn(cmd: Command, sink: AgentSink, observer?: TurnObserver): Promise<void> {
  if (cmd.w === "gc") {
    observer?.idle();
    return;
  }
  // A round trip (b) does nothing, and reports nothing: a stderr line per turn would be measured too.
  if (cmd.w === "b") return;
  observer?.turnStart(cmd);
  const info: Record<string, unknown> = {};
  switch (cmd.w) {
    case "a":
      for (let i = 0; i < cmd.n; i++) {
        const pending = sink.notify(chunkUpdate(i));
        if (pending) await pending;
      }
      break;
    case "c":
      for (let i = 0; i < cmd.n; i++) {
        const pending = sink.notify(mixedUpdate(i));
        if (pending) await pending;
      }
      break;
    case "e": {
      // Fire and forget: nothing is awaited until the last one.
      let last: Promise<unknown> | void = undefined;
      for (let i = 0; i < cmd.n; i++) last = sink.notify(chunkUpdate(i));
      if (last) await last;
      if (sink.flushed) await sink.flushed();
      break;
    }
    case "d": {
      const result = await sink.readTextFile(readPath(cmd.bytes));
      if (result.content.length !== cmd.bytes) {
        throw new Error(`fs/read_text_file returned ${result.content.length} chars, expected ${cmd.bytes}`);
      }
      info.received = result.content.length;
      break;
    }
  }
  observer?.turnEnd(cmd, info);
}
