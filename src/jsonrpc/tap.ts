import type { FrameProblem } from "./link.js";

/** One event seen by a tap: every message in both directions, and every incoming frame that was not a message. */
export type TapEvent =
  /** `rawId`: the exact text of the message's id on the wire, when a JS number cannot hold it (beyond 2^53). */
  | { direction: "in" | "out"; time: number; message: unknown; rawId?: string }
  | { direction: "in"; time: number; problem: FrameProblem };

/** A function that sees tap events. It must not throw (a throwing listener is removed and logged). */
export type TapListener = (event: TapEvent) => void;

/** Milliseconds since the epoch, with sub-millisecond precision where the platform has it. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The set of tap listeners of one connection. Costs nothing on the hot path when empty: callers check
 * `active` before building an event.
 */
export class TapRegistry {
  private listeners: TapListener[] = [];
  active = false;

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  add(listener: TapListener): () => void {
    this.listeners = [...this.listeners, listener];
    this.active = true;
    return () => this.remove(listener);
  }

  emit(event: TapEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.remove(listener);
        this.onListenerError(error);
      }
    }
  }

  private remove(listener: TapListener): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
    this.active = this.listeners.length > 0;
  }
}
