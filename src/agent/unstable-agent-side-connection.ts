/**
 * `AgentSideConnection` speaking the unstable protocol, for `@acpkit/sdk/unstable` (as the official SDK's unstable
 * entry has it): the unstable methods are validated and routed. Same class name at run time as the stable one.
 */
import { unstableFlavor } from "../acp/flavors.js";
import { AgentSideConnection as StableAgentSideConnection } from "./agent-side-connection.js";

/** `AgentSideConnection` speaking the unstable protocol: unstable methods are validated and routed. */
class AgentSideConnection extends StableAgentSideConnection {
  static override flavor = unstableFlavor;
}

export { AgentSideConnection as UnstableAgentSideConnection };
