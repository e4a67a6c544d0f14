/**
 * The page's end of a lane it drives: the client itself runs in a Web Worker (../worker/client-worker.ts: the
 * library's `ClientSideConnection` over its browser WebSocket transport), so a long turn's messages are handled off
 * the main thread. Here: the connection's methods as calls to the worker, and the agent's requests the worker
 * forwards, answered by the person (permission dialogs, forms) or by the inspector's host over the feed (files,
 * terminals), with the host's wire errors passed on unchanged.
 */
import type { ServerMessage } from "../../feed-protocol.js";
import type { Feed } from "./feed.js";
import type { Store } from "./store.js";
import type { ClientMethod, FromWorker, ToWorker, WireError } from "./worker-protocol.js";

export interface ClientLaneOptions {
  store: Store;
  feed: Feed;
  host: string;
  token: string;
  version: string;
}

/** An error the agent (or the connection) answered a call with. */
export class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The connection's methods the page uses, each a call to the worker. */
export type ClientCalls = { [M in ClientMethod]: (params: any) => Promise<any> };

const METHODS: readonly ClientMethod[] = [
  "newSession",
  "loadSession",
  "resumeSession",
  "unstable_forkSession",
  "listSessions",
  "prompt",
  "cancel",
  "setSessionMode",
  "setSessionConfigOption",
];

/** Opens a lane the page drives and initializes it; `initialized` resolves once the agent answered `initialize`. */
export class ClientLane {
  readonly key = `k${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  readonly connection: ClientCalls;
  /** The lane id, once the server announced it. */
  laneId: number | undefined;
  readonly initialized: Promise<unknown>;
  readonly #worker: Worker;
  readonly #calls = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  #nextCall = 1;

  constructor(private readonly options: ClientLaneOptions) {
    this.#worker = new Worker(`/worker.js?token=${encodeURIComponent(options.token)}`, {
      type: "module",
      name: `acp client ${this.key}`,
    });
    let initialized!: { resolve(value: unknown): void; reject(error: unknown): void };
    this.initialized = new Promise((resolve, reject) => (initialized = { resolve, reject }));
    this.#worker.onerror = (event) => initialized.reject(new Error(`the client worker failed: ${event.message}`));
    this.#worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type === "initialized") {
        if (message.error) initialized.reject(callError(message.error));
        else initialized.resolve(undefined);
      } else if (message.type === "result") {
        const call = this.#calls.get(message.id);
        this.#calls.delete(message.id);
        if (message.error) call?.reject(callError(message.error));
        else call?.resolve(message.result);
      } else void this.#answer(message);
    };
    this.#post({ type: "open", host: options.host, token: options.token, key: this.key, version: options.version });
    this.connection = Object.fromEntries(
      METHODS.map((method) => [method, (params: unknown) => this.#call(method, params)]),
    ) as ClientCalls;
  }

  #post(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  #call(method: ClientMethod, params: unknown): Promise<any> {
    const id = this.#nextCall++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#post({ type: "call", id, method, params });
    });
  }

  #lane(): number {
    if (this.laneId === undefined) {
      for (const lane of this.options.store.lanes.values()) {
        if (lane.info.clientKey === this.key) this.laneId = lane.info.id;
      }
    }
    return this.laneId ?? 0;
  }

  async #answer(message: Extract<FromWorker, { type: "ask" }>): Promise<void> {
    const { store, feed } = this.options;
    try {
      let result: unknown;
      if (message.kind === "host") {
        const answer = (await feed.ask({
          type: "host",
          lane: this.#lane(),
          method: message.method,
          params: message.params,
        })) as Extract<ServerMessage, { type: "host-result" }>;
        if (answer.error) return this.#post({ type: "answer", id: message.id, error: answer.error });
        result = answer.result;
      } else result = await store.ask(this.#lane(), message.kind, message.params);
      this.#post({ type: "answer", id: message.id, result });
    } catch (error) {
      this.#post({ type: "answer", id: message.id, error: { code: -32603, message: (error as Error).message } });
    }
  }
}

function callError(error: WireError): CallError {
  return new CallError(error.code, error.message, error.data);
}
