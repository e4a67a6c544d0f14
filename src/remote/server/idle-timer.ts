/**
 * A connection's idle timer: armed while the connection is idle (nothing in flight, no stream open), fired once
 * when it stayed idle for the whole delay (logged), disarmed as soon as it is not.
 */
import type { Logger } from "../../jsonrpc/logger.js";

export class IdleTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly onIdle: () => void,
    private readonly logger: Logger,
    private readonly connectionId: string,
  ) {}

  /** The connection is (or is no longer) idle. */
  update(idle: boolean): void {
    if (!idle) return this.stop();
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.logger.info("closing an idle remote connection: no stream open and no request for the idle timeout", {
        connectionId: this.connectionId,
        idleMs: this.delayMs,
      });
      this.onIdle();
    }, this.delayMs);
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
