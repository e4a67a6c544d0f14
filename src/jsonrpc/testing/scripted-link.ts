import type { FrameProblem, LinkReceiver, MessageLink } from "../link.js";
import type { AnyMessage } from "../messages.js";
import { UnserializableValueError } from "../local-errors.js";

/**
 * A link driven by a test: `inject` plays the peer, `sent` records what the engine sent (JSON round-tripped,
 * like a wire). For engine unit tests that need to send what no well-behaved peer would.
 */
export class ScriptedLink implements MessageLink {
  readonly sent: AnyMessage[] = [];
  receiver: LinkReceiver | undefined;
  closedByEngine = false;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  start(receiver: LinkReceiver): void {
    this.receiver = receiver;
  }

  send(message: AnyMessage): void {
    let text: string | undefined;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      throw new UnserializableValueError("the message", error);
    }
    if (text === undefined) throw new UnserializableValueError("the message", "JSON.stringify returned undefined");
    this.sent.push(JSON.parse(text) as AnyMessage);
    this.waiters = this.waiters.filter((w) => (this.sent.length >= w.count ? (w.resolve(), false) : true));
  }

  drain(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closedByEngine = true;
    return Promise.resolve();
  }

  inject(value: unknown): void {
    this.receiver!.message(value);
  }

  injectProblem(problem: FrameProblem): void {
    this.receiver!.problem(problem);
  }

  endInput(cause?: unknown): void {
    this.receiver!.closed(cause);
  }

  /** Resolves once `count` messages in all have been sent. */
  waitForSent(count: number): Promise<void> {
    if (this.sent.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}
