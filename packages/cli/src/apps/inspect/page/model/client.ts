/**
 * The page's own ACP client, one per lane it drives: the library's `ClientSideConnection` (unstable flavour, so
 * fork and the unstable update kinds are understood) over the library's browser WebSocket transport to the
 * inspector's `/acp` endpoint, which bridges it to the agent. What the agent asks of the client is answered here:
 * permission requests and forms by the person (dialogs), files and terminals by the inspector's host (over the
 * feed), with the host's wire errors passed on unchanged.
 */
import { createWebSocketStream, PROTOCOL_VERSION, RequestError } from "@acpkit/sdk";
import { ClientSideConnection, type Client } from "@acpkit/sdk/unstable";
import type { ServerMessage } from "../../feed-protocol.js";
import type { Feed } from "./feed.js";
import type { Store } from "./store.js";

export interface ClientLaneOptions {
  store: Store;
  feed: Feed;
  host: string;
  token: string;
  version: string;
}

/** Opens a lane the page drives and initializes it; resolves once the agent answered `initialize`. */
export class ClientLane {
  readonly key = `k${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  readonly connection: ClientSideConnection;
  /** The lane id, once the server announced it. */
  laneId: number | undefined;
  initialized: Promise<unknown>;

  constructor(private readonly options: ClientLaneOptions) {
    const stream = createWebSocketStream(`ws://${options.host}/acp?client=${this.key}`, { token: options.token });
    const client = this.#client();
    this.connection = new ClientSideConnection(() => client, stream);
    this.initialized = this.connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        elicitation: { form: {} },
      } as never,
      clientInfo: { name: "acp inspect", title: "acpkit inspector", version: options.version },
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

  #host = async (method: string, params: unknown): Promise<any> => {
    const answer = (await this.options.feed.ask({ type: "host", lane: this.#lane(), method, params })) as Extract<
      ServerMessage,
      { type: "host-result" }
    >;
    if (answer.error) throw new RequestError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  };

  #client(): Client {
    const { store } = this.options;
    return {
      sessionUpdate: async () => {},
      requestPermission: async (params) => (await store.ask(this.#lane(), "permission", params)) as never,
      createElicitation: async (params) => (await store.ask(this.#lane(), "elicitation", params)) as never,
      readTextFile: (params) => this.#host("fs/read_text_file", params),
      writeTextFile: (params) => this.#host("fs/write_text_file", params),
      createTerminal: (params) => this.#host("terminal/create", params),
      terminalOutput: (params) => this.#host("terminal/output", params),
      waitForTerminalExit: (params) => this.#host("terminal/wait_for_exit", params),
      killTerminal: (params) => this.#host("terminal/kill", params),
      releaseTerminal: (params) => this.#host("terminal/release", params),
    } as Client;
  }
}
