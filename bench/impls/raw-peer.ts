/**
 * The "raw" baseline: JSON over a pipe and nothing else. `JSON.stringify(msg) + "\n"` out, a line splitter and
 * `JSON.parse` in, a map of pending request ids. No validation, no streams, no promises per message.
 */

/** Splits a byte stream into lines and hands each line (as a string, without the newline) to `onLine`. */
export class LineSplitter {
  private parts: Buffer[] = [];

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let nl = chunk.indexOf(10);
    if (nl === -1) {
      this.parts.push(chunk);
      return;
    }
    let start = 0;
    if (this.parts.length > 0) {
      this.parts.push(chunk.subarray(0, nl));
      const whole = Buffer.concat(this.parts);
      this.parts = [];
      this.onLine(whole.toString("utf8"));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    while (nl !== -1) {
      this.onLine(chunk.toString("utf8", start, nl));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }
}

/** Splits string input into lines (the in-memory raw path: a direct function call per line). */
export class StringLineSplitter {
  private rest = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(text: string): void {
    let start = 0;
    let nl = text.indexOf("\n");
    if (nl === -1) {
      this.rest += text;
      return;
    }
    if (this.rest) {
      this.onLine(this.rest + text.slice(0, nl));
      this.rest = "";
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    while (nl !== -1) {
      this.onLine(text.slice(start, nl));
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    if (start < text.length) this.rest = text.slice(start);
  }
}

interface RawMessage {
  jsonrpc: "2.0";
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface RawHandlers {
  request?(method: string, params: unknown): unknown;
  notification?(method: string, params: unknown): void;
}

/**
 * Both ends of a JSON-RPC conversation over `send` (which takes one complete line, newline included, and returns
 * false when the transport wants the sender to wait for `drain`).
 */
export class RawPeer {
  private nextId = 0;
  private readonly pending = new Map<number | string, { resolve(v: unknown): void; reject(e: unknown): void }>();
  handlers: RawHandlers = {};

  constructor(
    private readonly send: (line: string) => boolean,
    private readonly drain: () => Promise<void> = () => Promise.resolve(),
  ) {}

  private write(message: RawMessage): Promise<void> | void {
    if (!this.send(JSON.stringify(message) + "\n")) return this.drain();
  }

  notify(method: string, params: unknown): Promise<void> | void {
    return this.write({ jsonrpc: "2.0", method, params });
  }

  request<T = unknown>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      void this.write({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Feeds one received line. */
  onLine = (line: string): void => {
    if (line.length === 0) return;
    const message = JSON.parse(line) as RawMessage;
    if (message.method !== undefined) {
      if (message.id === undefined) {
        this.handlers.notification?.(message.method, message.params);
        return;
      }
      const id = message.id;
      Promise.resolve()
        .then(() => {
          if (!this.handlers.request) throw new Error(`no handler for ${message.method}`);
          return this.handlers.request(message.method!, message.params);
        })
        .then(
          (result) => this.write({ jsonrpc: "2.0", id, result }),
          (error: unknown) => this.write({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } }),
        );
      return;
    }
    const waiter = message.id !== undefined && message.id !== null ? this.pending.get(message.id) : undefined;
    if (!waiter) return;
    this.pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(`${message.error.code}: ${message.error.message}`));
    else waiter.resolve(message.result);
  };

  /** Rejects everything still waiting. */
  close(reason = new Error("raw peer closed")): void {
    for (const waiter of this.pending.values()) waiter.reject(reason);
    this.pending.clear();
  }
}
