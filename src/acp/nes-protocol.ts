/**
 * The method maps of the NES protocol flavor (`@acpkit/sdk/experimental/nes`): the unstable ones, `initialize` with the
 * NES capabilities, plus `nes/*` requests and notifications and `document/*` notifications, all handled by the agent.
 */
import type * as nes from "../protocol/nes.js";
import type * as unstable from "../protocol/unstable.js";
import type { ProtocolTypes } from "./app-types.js";

/** The method maps of ACP v1 unstable plus Next Edit Suggestions and document sync. */
export interface NesProtocol extends ProtocolTypes {
  readonly agentRequests: Omit<unstable.AgentRequestMap, "initialize"> & {
    initialize: { params: nes.InitializeRequest; result: nes.InitializeResponse };
  } & nes.NesAgentRequestMap;
  readonly agentNotifications: unstable.AgentNotificationMap & nes.NesAgentNotificationMap;
  readonly clientRequests: unstable.ClientRequestMap;
  readonly clientNotifications: unstable.ClientNotificationMap;
}
