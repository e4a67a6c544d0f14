/**
 * A scripted peer: one side of a conversation driven frame by frame, for conformance checks, replays and tests.
 * It writes exactly what it is told (valid messages, raw text, half a frame), reads the other side's bytes, runs
 * every frame in both directions through a `WireChecker`, optionally records them, and lets a script wait for the
 * other side's frames. Browser-safe: bytes in through `receive()`, text out through the `write` function given.
 */
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { now } from "../jsonrpc/tap.js";
import { LineSplitter } from "../transports/line-splitter.js";
import type { Side, WireEvent, WireFrame } from "./events.js";
import type { CassetteRecorder } from "./recorder.js";
import { WireChecker } from "./wire-checker.js";

/** Options of a `ScriptPeer`. */
export interface ScriptPeerOptions {
  /** The side this peer plays. */
  side: Side;
  /** Where its output goes (the other side's input). */
  write: (text: string) => void;
  /** Runs over every frame. Default: a checker judging the other side with every rule. */
  checker?: WireChecker;
  /** Records every frame. */
  recorder?: CassetteRecorder;
  /** Incoming lines longer than this are reported as oversized. Default 128 MiB. */
  maxLineBytes?: number;
  /** Called for every event, both directions, after the checker saw it. */
  onEvent?: (event: WireEvent) => void;
}

/** A wait for the other side's frame ran out of time. */
export class WaitTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`no ${what} within ${timeoutMs} ms`);
    this.name = "WaitTimeoutError";
  }
}

/** The other side's input ended before what was waited for came. */
export class PeerClosedError extends Error {
  constructor(readonly what: string) {
    super(`the connection ended before ${what}`);
    this.name = "PeerClosedError";
  }
}

interface Waiter {
  match: (event: WireEvent) => boolean;
  resolve: (event: WireEvent) => void;
  reject: (error: Error) => void;
  what: string;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const key = (id: JsonRpcId | undefined) => JSON.stringify(id);

export class ScriptPeer {
  readonly side: Side;
  readonly remote: Side;
  readonly checker: WireChecker;
  /** Every event of the conversation, both directions, in order. */
  readonly events: WireEvent[] = [];
  private readonly splitter: LineSplitter;
  private readonly waiters = new Set<Waiter>();
  private readonly requestHandlers: Array<(event: WireEvent) => void> = [];
  private readonly notificationHandlers: Array<(event: WireEvent) => void> = [];
  private nextId = 0;
  private ended = false;
  private endError: unknown;
  private endListeners: Array<(error?: unknown) => void> = [];

  constructor(private readonly options: ScriptPeerOptions) {
    this.side = options.side;
    this.remote = options.side === "agent" ? "client" : "agent";
    this.checker = options.checker ?? new WireChecker({ judge: [this.remote] });
    this.splitter = new LineSplitter(options.maxLineBytes ?? 128 * 1024 * 1024, {
      line: (text) => this.incomingLine(text),
      tooLarge: (bytes, head) => this.incoming({ kind: "oversized", bytes, head }),
    });
  }

  /** Bytes from the other side. */
  receive(chunk: Uint8Array): void {
    if (!this.ended) this.splitter.push(chunk);
  }

  /** The other side's output ended (`error` when it failed). Pending waits reject. */
  receiveEnd(error?: unknown): void {
    if (this.ended) return;
    this.splitter.end();
    this.ended = true;
    this.endError = error;
    for (const waiter of [...this.waiters]) this.settle(waiter, undefined, new PeerClosedError(waiter.what));
    for (const listener of this.endListeners) listener(error);
    this.endListeners = [];
  }

  /** True once the other side's output ended. */
  get closed(): boolean {
    return this.ended;
  }

  /** Resolves when the other side's output ends (with its error, if any). */
  whenClosed(): Promise<unknown> {
    if (this.ended) return Promise.resolve(this.endError);
    return new Promise((resolve) => this.endListeners.push(resolve));
  }

  /** Handles the other side's requests (every handler sees each; answer with `respond`). */
  onRequest(handler: (event: WireEvent) => void): void {
    this.requestHandlers.push(handler);
  }

  /** Sees the other side's notifications. */
  onNotification(handler: (event: WireEvent) => void): void {
    this.notificationHandlers.push(handler);
  }

  /** Sends one message as is. Returns its event. */
  send(message: Record<string, unknown>): WireEvent {
    const text = JSON.stringify(message);
    this.options.write(`${text}\n`);
    return this.outgoing({ kind: "message", value: message }, text);
  }

  /** Writes raw text (malformed lines, half frames). Complete lines are fed to the checker as frames of this side. */
  sendRaw(text: string): void {
    this.options.write(text);
    for (const line of text.split("\n").slice(0, text.endsWith("\n") ? -1 : undefined)) {
      if (line === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.outgoing({ kind: "unparsable", line });
        continue;
      }
      this.outgoing({ kind: "message", value }, line);
    }
  }

  /** Sends a request with a fresh id (or `id`); `response` resolves with the other side's answer. */
  request(
    method: string,
    params?: unknown,
    options: { id?: JsonRpcId; timeoutMs?: number } = {},
  ): { id: JsonRpcId; event: WireEvent; response: Promise<WireEvent> } {
    const id = options.id ?? ++this.nextId;
    const response = this.waitFor((e) => e.type === "response" && key(e.id) === key(id), {
      what: `answer to ${method} (id ${key(id)})`,
      timeoutMs: options.timeoutMs,
    });
    response.catch(() => {}); // a caller that never awaits it must not crash the process
    const event = this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return { id, event, response };
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): WireEvent {
    return this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Answers a request of the other side with a result. */
  respond(request: WireEvent, result: unknown): WireEvent {
    return this.send({ jsonrpc: "2.0", id: request.id ?? null, result });
  }

  /** Answers a request of the other side with an error. */
  respondError(request: WireEvent, code: number, message: string, data?: unknown): WireEvent {
    return this.send({
      jsonrpc: "2.0",
      id: request.id ?? null,
      error: { code, message, ...(data === undefined ? {} : { data }) },
    });
  }

  /**
   * Waits for a frame of the other side that matches, arriving after event index `since` (default: from now on;
   * pass 0 to include what already came). Rejects with `WaitTimeoutError` or `PeerClosedError`.
   */
  waitFor(
    match: (event: WireEvent) => boolean,
    options: { what: string; timeoutMs?: number | undefined; since?: number },
  ): Promise<WireEvent> {
    if (options.since !== undefined) {
      for (let i = options.since; i < this.events.length; i++) {
        const event = this.events[i]!;
        if (event.from === this.remote && match(event)) return Promise.resolve(event);
      }
    }
    if (this.ended) return Promise.reject(new PeerClosedError(options.what));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { match, resolve, reject, what: options.what, timer: undefined };
      if (options.timeoutMs !== undefined)
        waiter.timer = setTimeout(
          () => this.settle(waiter, undefined, new WaitTimeoutError(options.what, options.timeoutMs!)),
          options.timeoutMs,
        );
      this.waiters.add(waiter);
    });
  }

  /** Events of the other side from index `since` on. */
  received(since = 0): WireEvent[] {
    return this.events.slice(since).filter((e) => e.from === this.remote);
  }

  private incomingLine(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.incoming({ kind: "unparsable", line: text });
      return;
    }
    this.incoming({ kind: "message", value }, text);
  }

  private incoming(frame: WireFrame, raw?: string): void {
    const event = this.record(this.remote, frame, raw);
    for (const waiter of [...this.waiters]) if (waiter.match(event)) this.settle(waiter, event);
    if (event.type === "request") for (const handler of this.requestHandlers) handler(event);
    else if (event.type === "notification") for (const handler of this.notificationHandlers) handler(event);
  }

  private outgoing(frame: WireFrame, raw?: string): WireEvent {
    return this.record(this.side, frame, raw);
  }

  private record(from: Side, frame: WireFrame, raw?: string): WireEvent {
    const time = now();
    const event = this.checker.frame(from, frame, time);
    this.events.push(event);
    this.options.recorder?.frame(from, frame, time, raw);
    this.options.onEvent?.(event);
    return event;
  }

  private settle(waiter: Waiter, event?: WireEvent, error?: Error): void {
    if (!this.waiters.delete(waiter)) return;
    if (waiter.timer !== undefined) clearTimeout(waiter.timer);
    if (error) waiter.reject(error);
    else waiter.resolve(event!);
  }
}
