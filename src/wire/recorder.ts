/**
 * Records a conversation as a cassette (see ./cassette.ts), through a line sink: a file in Node (`@acpkit/sdk/node`'s
 * `openCassetteFile`), an array in a test, anything. The header waits for the `initialize` exchange so it can carry
 * both sides' versions and capabilities; frames before it are held and written
 * right after it (stray lines before it too, at most 64 frames). `close()` writes whatever is held.
 */
import type { TapListener } from "../jsonrpc/tap.js";
import { CASSETTE_VERSION, entryLine, type CassetteHeader, type EntryNotes } from "./cassette.js";
import type { Side, WireFrame } from "./events.js";

/** What the recorder writes to: one call per line, without the newline. */
export type LineSink = (line: string) => void;

/** Options of a `CassetteRecorder`. */
export interface CassetteRecorderOptions {
  /** Who records. */
  tool: { name: string; version: string };
  /** The agent's command line, when known. */
  agent?: readonly string[];
  /** Extra header fields. */
  header?: Record<string, unknown>;
  /** Clock for `created`; tests pin it. */
  created?: Date;
}

/** Most frames held back while waiting for the initialize exchange. */
const MAX_HELD = 64;

export class CassetteRecorder {
  private held: string[] | undefined = [];
  private readonly header: CassetteHeader;
  private initializeId: unknown = undefined;
  private closed = false;

  constructor(
    private readonly sink: LineSink,
    options: CassetteRecorderOptions,
  ) {
    this.header = {
      acpCassette: CASSETTE_VERSION,
      created: (options.created ?? new Date()).toISOString(),
      tool: options.tool,
      ...(options.agent ? { agent: options.agent } : {}),
      ...options.header,
    };
  }

  /**
   * Records one frame written by `from`. `raw`: its JSON text as sent (saves serializing it again). Throws, recording
   * nothing, when the frame's value cannot be serialized (see `entryLine`).
   */
  frame(from: Side, frame: WireFrame, time: number, raw?: string, notes?: EntryNotes): void {
    if (this.closed) return;
    const line = entryLine(from, frame, time, raw, notes);
    if (this.held === undefined) {
      this.sink(line);
      return;
    }
    this.held.push(line);
    if (!this.learn(from, frame) || this.held.length >= MAX_HELD) this.flushHeader();
  }

  /** Records one JSON message written by `from`. */
  message(from: Side, value: unknown, time: number, raw?: string, notes?: EntryNotes): void {
    this.frame(from, { kind: "message", value }, time, raw, notes);
  }

  /**
   * A listener for a connection's `tap()`: `local` is the side that connection is (a client's connection records
   * its outgoing messages as `from: "client"`).
   */
  tapListener(local: Side): TapListener {
    const remote: Side = local === "client" ? "agent" : "client";
    return (event) => {
      if ("message" in event)
        this.message(
          event.direction === "out" ? local : remote,
          event.message,
          event.time,
          undefined,
          event.rawId === undefined ? undefined : { rawId: event.rawId },
        );
      else if (event.problem.kind === "parse")
        this.frame(remote, { kind: "unparsable", line: event.problem.preview }, event.time);
      else if (event.problem.kind === "too_large")
        this.frame(remote, { kind: "oversized", bytes: event.problem.bytes, head: event.problem.head }, event.time);
      // "lost" (responses a broken link could not deliver) is no frame on the wire: nothing to record.
    };
  }

  /** Writes the header (and held frames) if not written yet; later frames are ignored. */
  close(): void {
    if (this.closed) return;
    this.flushHeader();
    this.closed = true;
  }

  /** Takes what the header needs from the initialize exchange; false once the header should be written. */
  private learn(from: Side, frame: WireFrame): boolean {
    if (frame.kind !== "message") return true; // a log line before initialize: keep waiting
    if (typeof frame.value !== "object" || frame.value === null) return false;
    const message = frame.value as Record<string, unknown>;
    if (from === "client" && message.method === "initialize" && "id" in message) {
      const params = (message.params ?? {}) as Record<string, unknown>;
      this.initializeId = message.id;
      this.header.protocolVersion = params.protocolVersion;
      if (params.clientInfo !== undefined) this.header.clientInfo = params.clientInfo;
      if (params.clientCapabilities !== undefined) this.header.clientCapabilities = params.clientCapabilities;
      return true;
    }
    if (
      from === "agent" &&
      this.initializeId !== undefined &&
      message.id === this.initializeId &&
      !("method" in message)
    ) {
      const result = message.result as Record<string, unknown> | undefined;
      if (result) {
        this.header.protocolVersion = result.protocolVersion;
        if (result.agentInfo !== undefined) this.header.agentInfo = result.agentInfo;
        if (result.agentCapabilities !== undefined) this.header.agentCapabilities = result.agentCapabilities;
      }
    }
    return false;
  }

  private flushHeader(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.sink(JSON.stringify(this.header));
    for (const line of held) this.sink(line);
  }
}
