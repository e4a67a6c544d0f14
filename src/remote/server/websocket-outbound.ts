/**
 * The output of a WebSocket connection: every agent message is one text frame, whatever its session. The socket
 * holds what the client has not read (`bufferedAmount`). An agent that awaits its sends is paced: from
 * `PACE_HIGH_WATER_BYTES` buffered it waits for the socket to drain (so frames leave while the agent works, in
 * bounded batches, instead of piling up for one huge write), as over stdio. Beyond `maxBufferedBytes` even an agent
 * that does not await is made to wait; either way, a client that reads none of it for `maxOutputStallMs` is
 * disconnected.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Bidirectional Messaging)
 */
import type { ResolvedLimits } from "./limits.js";
import { ConnectionLimitError, Waiters, type OutputSink } from "./output-sink.js";
import type { ServerWebSocket } from "./server-websocket.js";

const RESOLVED = Promise.resolve();
/** Buffered output from which `whenRoom()` waits for the socket to drain (as the stdio writer's high-water mark). */
export const PACE_HIGH_WATER_BYTES = 256 * 1024;
/** Without a drain event, the socket is polled, backing off while the client stays behind. */
const POLL_INITIAL_MS = 5;
const POLL_MAX_MS = 500;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });
}

export class WebSocketOutbound implements OutputSink {
  readonly #room = new Waiters();
  #watching = false;
  #closed = false;

  constructor(
    private readonly socket: ServerWebSocket,
    private readonly limits: ResolvedLimits,
    private readonly onLimit: (error: ConnectionLimitError) => void,
  ) {}

  get #buffered(): number {
    return this.socket.bufferedAmount ?? 0;
  }

  get bufferedAmount(): number {
    return this.#buffered;
  }

  get backlogged(): boolean {
    return !this.#closed && this.#buffered >= this.limits.maxBufferedBytes;
  }

  deliver(text: string): void {
    if (this.#closed) return;
    this.socket.send(text);
    const buffered = this.#buffered;
    if (buffered > this.limits.maxBufferedBytes + this.limits.maxMessageBytes) {
      throw new ConnectionLimitError(
        `the client is behind by ${buffered} bytes of output (maxBufferedBytes ` +
          `${this.limits.maxBufferedBytes}) and the agent did not wait for it`,
      );
    }
    if (buffered >= this.limits.maxBufferedBytes) this.#watch();
  }

  whenRoom(): Promise<void> {
    if (this.#closed || this.#buffered < Math.min(PACE_HIGH_WATER_BYTES, this.limits.maxBufferedBytes)) return RESOLVED;
    const waiting = this.#room.wait();
    this.#watch();
    return waiting;
  }

  finish(code = 1000, reason = ""): void {
    this.#close(code, reason);
  }

  abort(code = 1001, reason = ""): void {
    this.#close(code, reason);
  }

  #close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#room.wakeAll();
    try {
      this.socket.close(code, reason.slice(0, 123));
    } catch {
      // Already closing.
    }
  }

  /** True while the agent is kept waiting: output at or above the pacing mark. */
  get #behind(): boolean {
    return !this.#closed && this.#buffered >= Math.min(PACE_HIGH_WATER_BYTES, this.limits.maxBufferedBytes);
  }

  /** Waits for the socket to drain below the pacing mark, closing the connection if it makes no progress in time. */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    let stalled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onStall!: () => void;
    const stall = new Promise<void>((resolve) => (onStall = resolve));
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        onStall();
      }, this.limits.maxOutputStallMs);
    };
    arm();
    void (async () => {
      let last = this.#buffered;
      let pollMs = POLL_INITIAL_MS;
      while (this.#behind && !stalled) {
        await Promise.race([this.socket.whenDrained?.() ?? delay(pollMs), stall]);
        pollMs = Math.min(pollMs * 2, POLL_MAX_MS);
        const now = this.#buffered;
        if (now < last) {
          arm();
          pollMs = POLL_INITIAL_MS;
        }
        last = now;
      }
      clearTimeout(timer);
      this.#watching = false;
      if (stalled && this.#behind) {
        this.onLimit(
          new ConnectionLimitError(
            `the client read none of its output for ${this.limits.maxOutputStallMs} ms (maxOutputStallMs)`,
          ),
        );
      }
      this.#room.wakeAll();
    })();
  }
}
