/**
 * The inspector's lanes and the pages watching them: every conversation the server relays or watches is a lane;
 * each byte either side of a lane writes is recorded (`bytes`) and sent to every page on the feed, batched per turn
 * of the event loop so a fast stream costs one socket message per burst, not per chunk. A page that connects late
 * gets every lane first, then the history (an editor started `acp inspect --tap` long before the browser was
 * opened), up to `maxHistoryBytes` (past that, the oldest records are dropped and the page is told how much it
 * missed), then which lanes have closed: lanes are never dropped with the history.
 */
import { encodeRecord, type LaneInfo, type LaneRole, type ServerMessage } from "./feed-protocol.js";

/** A page on the feed: where its messages go. */
export interface FeedClient {
  sendText(text: string): void;
  sendBinary(data: Uint8Array): void;
}

/** One side of a lane, as its bytes are recorded. */
export interface LaneHandle {
  readonly info: LaneInfo;
  /** Bytes `from` wrote (a copy is taken: the caller may reuse the buffer). */
  bytes(from: "client" | "agent", chunk: Uint8Array): void;
  /** `from`'s output ended. */
  end(from: "client" | "agent"): void;
  /** A line the agent wrote on stderr. */
  stderr(line: string): void;
  /** The lane is over. */
  close(reason?: string): void;
}

export interface LaneHubOptions {
  /** History kept for pages that connect later. Default 512 MiB. */
  maxHistoryBytes?: number;
}

type Pending = { lane: number; from: "client" | "agent"; time: number; chunks: Uint8Array[]; size: number };

export class LaneHub {
  readonly #clients = new Set<FeedClient>();
  readonly #lanes = new Map<number, LaneInfo>();
  /** Lanes that closed, with the reason. */
  readonly #closed = new Map<number, string | undefined>();
  /** Text and binary messages in order, for late pages. */
  readonly #history: Array<string | Uint8Array> = [];
  #historyBytes = 0;
  #droppedBytes = 0;
  readonly #maxHistory: number;
  #nextLane = 1;
  #pending: Pending | undefined;
  #flushScheduled = false;

  constructor(options: LaneHubOptions = {}) {
    this.#maxHistory = options.maxHistoryBytes ?? 512 * 1024 * 1024;
  }

  get lanes(): readonly LaneInfo[] {
    return [...this.#lanes.values()];
  }

  /** Adds a page: it gets the history, then everything live. Returns the function that removes it. */
  attach(client: FeedClient): () => void {
    this.#flush();
    if (this.#droppedBytes > 0) {
      client.sendText(
        json({
          type: "notice",
          level: "warning",
          text: `The first ${this.#droppedBytes} bytes of history were dropped (over the inspector's history limit).`,
        }),
      );
    }
    for (const lane of this.#lanes.values()) client.sendText(json({ type: "lane", lane }));
    for (const item of this.#history) {
      if (typeof item === "string") client.sendText(item);
      else client.sendBinary(item);
    }
    for (const [lane, reason] of this.#closed)
      client.sendText(json({ type: "lane-closed", lane, ...(reason !== undefined ? { reason } : {}) }));
    this.#clients.add(client);
    return () => this.#clients.delete(client);
  }

  /** Sends a message to every page now, without keeping it for later ones. */
  broadcast(message: ServerMessage): void {
    this.#flush();
    const text = json(message);
    for (const client of this.#clients) client.sendText(text);
  }

  /** Opens a lane. */
  open(role: LaneRole, label: string, clientKey?: string): LaneHandle {
    const info: LaneInfo = {
      id: this.#nextLane++,
      role,
      label,
      ...(clientKey !== undefined ? { clientKey } : {}),
      started: Date.now(),
    };
    this.#lanes.set(info.id, info);
    this.#live(json({ type: "lane", lane: info }));
    let closed = false;
    return {
      info,
      bytes: (from, chunk) => {
        if (!closed && chunk.length > 0) this.#bytes(info.id, from, chunk);
      },
      end: (from) => {
        if (closed) return;
        this.#flush();
        this.#keep(encodeRecord(info.id, from, now(), undefined));
      },
      stderr: (line) => {
        if (!closed) this.#keep(json({ type: "stderr", lane: info.id, line }));
      },
      close: (reason) => {
        if (closed) return;
        closed = true;
        this.#closed.set(info.id, reason);
        this.#live(json({ type: "lane-closed", lane: info.id, ...(reason !== undefined ? { reason } : {}) }));
      },
    };
  }

  #bytes(lane: number, from: "client" | "agent", chunk: Uint8Array): void {
    const pending = this.#pending;
    if (pending && (pending.lane !== lane || pending.from !== from)) this.#flush();
    if (!this.#pending) this.#pending = { lane, from, time: now(), chunks: [], size: 0 };
    this.#pending.chunks.push(Uint8Array.from(chunk));
    this.#pending.size += chunk.length;
    if (this.#pending.size >= 1024 * 1024) this.#flush();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => {
        this.#flushScheduled = false;
        this.#flush();
      });
    }
  }

  #flush(): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    const bytes = pending.chunks.length === 1 ? pending.chunks[0]! : concat(pending.chunks, pending.size);
    this.#keep(encodeRecord(pending.lane, pending.from, pending.time, bytes));
  }

  /** Sent to the pages now, after what is pending; not kept (lanes are sent to late pages from `#lanes`). */
  #live(text: string): void {
    this.#flush();
    for (const client of this.#clients) client.sendText(text);
  }

  #keep(item: string | Uint8Array): void {
    if (typeof item === "string") this.#flush();
    this.#history.push(item);
    this.#historyBytes += sizeOf(item);
    while (this.#historyBytes > this.#maxHistory && this.#history.length > 1) {
      const dropped = this.#history.shift()!;
      this.#historyBytes -= sizeOf(dropped);
      this.#droppedBytes += sizeOf(dropped);
    }
    for (const client of this.#clients) {
      if (typeof item === "string") client.sendText(item);
      else client.sendBinary(item);
    }
  }
}

function json(message: ServerMessage): string {
  return JSON.stringify(message);
}

function sizeOf(item: string | Uint8Array): number {
  return typeof item === "string" ? item.length : item.length;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}
