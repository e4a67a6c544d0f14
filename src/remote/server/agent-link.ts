/**
 * The link an agent hosted by the server talks through: what the client POSTs (or sends over its WebSocket) is
 * delivered to the agent's receiver; what the agent sends is serialized once and handed to the connection, which
 * routes it to the client's streams. `drain()` waits while the client is behind, so an agent that awaits its sends
 * goes no faster than the client reads; and it waits for the next turn of the event loop once it (or all the
 * process's agents together) sent its share of this one (./turn-share.ts), so that one agent's burst does not hold
 * every other connection of the server until it ends.
 */
import type { LinkReceiver, MessageLink } from "../../jsonrpc/link.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { LinkLifecycle } from "../../transports/link-lifecycle.js";
import type { LinkControl } from "../../transports/link-streams.js";
import { afterThisTurn } from "../../transports/next-turn.js";
import { serializeMessage } from "../../transports/serialize.js";
import { AGENT_TURN_SHARE_CHARS, processShareSpent, spend } from "./turn-share.js";

/** Where the agent's output goes: the connection that hosts it. */
export interface AgentOutput {
  /** One message from the agent, its JSON text, and the exact text of its id when a JS number cannot hold it. */
  fromAgent(message: AnyMessage, text: string, rawId?: string): void;
  /** The agent closed its output (or its link): nothing more will come. */
  agentOutputClosed(): void;
  /** Resolves once the client has room for more output (or the connection is over). */
  whenRoom(): Promise<void>;
}

/**
 * The agent's end of a server connection. Inbound messages are delivered in order, a whole batch per microtask,
 * and held while the agent pauses its input (a web-stream reader whose queue is full).
 */
export class AgentLink implements MessageLink, LinkControl {
  /** The agent's receiver, and the end of its input: drop what it has not taken. */
  readonly #life = new LinkLifecycle(() => {
    this.#inbox = [];
    this.#rawIds = undefined;
    this.#inboxSizes = [];
    this.#inboxChars = 0;
    this.#next = 0;
  });
  #inbox: unknown[] = [];
  /** The exact id text of inbox messages whose id a JS number cannot hold, by inbox index. */
  #rawIds: Map<number, string> | undefined;
  #next = 0;
  #scheduled = false;
  #paused = false;
  #inputEnded = false;
  #inputCause: unknown;
  #outputClosed = false;
  #inboxChars = 0;
  #inboxSizes: number[] = [];
  /** Output sent since the agent last waited for the next turn (see ./turn-share.ts). */
  #sentSinceTurn = 0;

  constructor(
    private readonly output: AgentOutput,
    /** The largest message the agent may send, in UTF-8 bytes. */
    readonly maxMessageBytes: number,
  ) {}

  /** UTF-16 units of client messages delivered but not yet taken by the agent (its input is paused or not started). */
  get inboxChars(): number {
    return this.#inboxChars;
  }

  /** Whether the agent has paused its input. */
  get paused(): boolean {
    return this.#paused || this.#life.receiver === undefined;
  }

  /**
   * Hands one client message to the agent. `chars` is its JSON length, for accounting; `rawId` the exact text of its
   * id when a JS number cannot hold it (the agent's engine echoes it). Ignored once input ended.
   */
  deliver(message: unknown, chars: number, rawId?: string): void {
    if (this.#life.finished || this.#inputEnded) return;
    if (rawId !== undefined) (this.#rawIds ??= new Map()).set(this.#inbox.length, rawId);
    this.#inbox.push(message);
    this.#inboxSizes.push(chars);
    this.#inboxChars += chars;
    this.#schedule();
  }

  /** Ends the agent's input after what is already delivered: `closed(cause)` follows the last message. */
  endInput(cause?: unknown): void {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    this.#inputCause = cause;
    if (cause !== undefined) this.#life.finish(cause);
    else this.#schedule();
  }

  start(receiver: LinkReceiver): void {
    if (this.#life.start(receiver)) this.#schedule();
  }

  send(message: AnyMessage, rawId?: string): void {
    const text = serializeMessage(message, this.maxMessageBytes, rawId);
    if (this.#outputClosed) return;
    this.#sentSinceTurn += text.length;
    spend(text.length);
    this.output.fromAgent(message, text, rawId);
  }

  drain(): Promise<void> {
    const room = this.output.whenRoom();
    if (this.#sentSinceTurn < AGENT_TURN_SHARE_CHARS && !processShareSpent()) return room;
    this.#sentSinceTurn = 0;
    return room.then(afterThisTurn);
  }

  close(): Promise<void> {
    void this.closeOutput();
    this.#life.finishLater(undefined);
    return Promise.resolve();
  }

  pauseInput(): void {
    this.#paused = true;
  }

  resumeInput(): void {
    this.#paused = false;
    this.#schedule();
  }

  stopInput(): void {
    this.#life.finishLater(undefined);
  }

  closeOutput(): Promise<void> {
    if (!this.#outputClosed) {
      this.#outputClosed = true;
      this.output.agentOutputClosed();
    }
    return Promise.resolve();
  }

  #schedule(): void {
    if (this.#scheduled || !this.#life.receiver || this.#paused || this.#life.finished) return;
    this.#scheduled = true;
    queueMicrotask(this.#deliver);
  }

  readonly #deliver = (): void => {
    this.#scheduled = false;
    const receiver = this.#life.receiver!;
    try {
      while (this.#next < this.#inbox.length && !this.#paused && !this.#life.finished) {
        const index = this.#next++;
        const message = this.#inbox[index];
        this.#inbox[index] = undefined;
        this.#inboxChars -= this.#inboxSizes[index]!;
        const rawId = this.#rawIds?.get(index);
        if (rawId === undefined) receiver.message(message);
        else {
          this.#rawIds!.delete(index);
          receiver.message(message, rawId);
        }
      }
    } catch (error) {
      this.#life.finish(error);
      return;
    }
    if (this.#next === this.#inbox.length) {
      this.#inbox = [];
      this.#rawIds = undefined;
      this.#inboxSizes = [];
      this.#next = 0;
      if (this.#inputEnded) this.#life.finish(this.#inputCause);
    }
  };
}
