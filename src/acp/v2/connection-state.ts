/**
 * What a protocol v2 app keeps per connection: the connection and its initialization lifecycle; and the handle
 * `connect()` returns, which adds `initialized` to the side-neutral handle.
 */
import type { AcpConnection } from "../acp-connection.js";
import { ConnectionHandle } from "../connect.js";
import type { V2Admission } from "./admission.js";
import type { InitializationSnapshot, InitializationState } from "./initialization.js";

export interface V2ConnectionState {
  readonly acp: AcpConnection;
  readonly init: InitializationState;
}

/**
 * The state of a connection built with a v2 admission (`agentAdmission` or `clientAdmission`, given to its
 * constructor): the admission's lifecycle, which fails when the connection closes before it was initialized.
 */
export function v2ConnectionState(acp: AcpConnection): V2ConnectionState {
  const init = (acp.admission as V2Admission | undefined)?.state;
  if (init === undefined) throw new Error("a protocol v2 connection is built with a v2 admission");
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
