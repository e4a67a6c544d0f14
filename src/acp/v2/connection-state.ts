/**
 * What a protocol v2 app keeps per connection: the connection and its initialization lifecycle; and the handle
 * `connect()` returns, which adds `initialized` to the side-neutral handle.
 */
import type { AcpConnection } from "../acp-connection.js";
import { ConnectionHandle } from "../connect.js";
import { InitializationState, type InitializationSnapshot } from "./initialization.js";

export interface V2ConnectionState {
  readonly acp: AcpConnection;
  readonly init: InitializationState;
}

/** A fresh state for a connection: its lifecycle fails when the connection closes before it was initialized. */
export function v2ConnectionState(acp: AcpConnection): V2ConnectionState {
  const init = new InitializationState();
  init.followClose(acp.signal);
  return { acp, init };
}

/** The side-neutral part of a v2 connection handle. */
export class V2ConnectionHandle<Request, Response> extends ConnectionHandle {
  constructor(protected readonly state: V2ConnectionState) {
    super(state.acp);
  }

  /**
   * Resolves with the validated `initialize` exchange once the connection is initialized (the latest one after a
   * repeat); rejects if the connection fails or closes before.
   */
  get initialized(): Promise<InitializationSnapshot<Request, Response>> {
    return this.state.init.initialized as Promise<InitializationSnapshot<Request, Response>>;
  }
}
