/**
 * The page's end of the feed socket: the lanes and their bytes from the server, the host calls and checks the page
 * asks of it. The token travels as the `acp.bearer.<base64url>` subprotocol (a browser cannot set headers).
 */
import { bearerSubprotocol } from "@acpkit/sdk/remote";
import { decodeRecord, FEED_SUBPROTOCOL, type PageMessage, type ServerMessage } from "../../feed-protocol.js";

/** A page message before the feed numbers it. */
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

export interface FeedHandlers {
  message(message: ServerMessage): void;
  record(lane: number, from: "client" | "agent", time: number, bytes: Uint8Array | undefined): void;
  closed(reason: string): void;
}

export class Feed {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (message: ServerMessage) => void>();
  #nextId = 1;

  constructor(url: string, token: string, handlers: FeedHandlers) {
    this.#socket = new WebSocket(url, [FEED_SUBPROTOCOL, bearerSubprotocol(token)]);
    this.#socket.binaryType = "arraybuffer";
    this.#socket.onmessage = (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data) as ServerMessage;
        if ((message.type === "host-result" || message.type === "check-result") && this.#waiting.has(message.id)) {
          this.#waiting.get(message.id)!(message);
          this.#waiting.delete(message.id);
          return;
        }
        handlers.message(message);
        return;
      }
      const record = decodeRecord(new Uint8Array(event.data as ArrayBuffer));
      handlers.record(record.lane, record.from, record.time, record.bytes);
    };
    this.#socket.onclose = (event) =>
      handlers.closed(
        event.reason || (event.code === 1006 ? "the inspector is not reachable" : `closed (${event.code})`),
      );
  }

  /** Asks the server; resolves with its answer. */
  ask(message: WithoutId<PageMessage>): Promise<ServerMessage> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#socket.readyState !== WebSocket.OPEN) {
        reject(new Error("the inspector's server is not connected"));
        return;
      }
      this.#waiting.set(id, resolve);
      this.#socket.send(JSON.stringify({ ...message, id }));
    });
  }
}
