/**
 * `ClientSideConnection` speaking the unstable protocol, for `@acpkit/sdk/unstable` (as the official SDK's unstable
 * entry has it): the unstable methods are validated and routed. Same class name at run time as the stable one.
 */
import { unstableFlavor } from "../acp/flavors.js";
import { ClientSideConnection as StableClientSideConnection } from "./client-side-connection.js";

/** `ClientSideConnection` speaking the unstable protocol. */
class ClientSideConnection extends StableClientSideConnection {
  static override flavor = unstableFlavor;
}

export { ClientSideConnection as UnstableClientSideConnection };
