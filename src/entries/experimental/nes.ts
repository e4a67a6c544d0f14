/**
 * `@acpkit/sdk/experimental/nes`: the unstable protocol plus Next Edit Suggestions (`nes/*`) and document sync
 * (`document/*`), a drop-in for `@agentclientprotocol/sdk/experimental/nes`. Everything `@acpkit/sdk/unstable` exports,
 * with `agent()` / `client()` / `methods` / `AGENT_METHODS` knowing the NES methods, the NES types, `validate`
 * (`z<Name>` for every NES definition) and the NES capability schemas. Unstable: may change in any release.
 */
import type * as base from "../unstable.js";
import type { NesProtocol } from "../../acp/nes-protocol.js";

export * from "../unstable.js";
export type { SessionId } from "../unstable.js";
export type * from "../../protocol/generated/types.nes.js";
export type {
  AgentCapabilities,
  ClientCapabilities,
  InitializeRequest,
  InitializeResponse,
  ZodLikeSchema,
  NesValidate,
} from "../../protocol/nes.js";
export {
  NES_ENTRY_AGENT_METHODS as AGENT_METHODS,
  validate,
  zAgentCapabilities,
  zClientCapabilities,
  zInitializeRequest,
  zInitializeResponse,
} from "../../protocol/nes.js";
export { nesMethods as methods, type NesMethods } from "../../acp/methods.js";
export type { NesProtocol } from "../../acp/nes-protocol.js";
export { NesAgentApp as AgentApp, nesAgent as agent } from "../../agent/nes-agent-app.js";
export { NesClientApp as ClientApp, nesClient as client } from "../../client/nes-client-app.js";

// The app types of this entry default to the NES method maps.
export type AgentRequestMethod = base.AgentRequestMethod<NesProtocol>;
export type AgentNotificationMethod = base.AgentNotificationMethod<NesProtocol>;
export type AgentRequestHandlersByMethod = base.AgentRequestHandlersByMethod<NesProtocol>;
export type AgentNotificationHandlersByMethod = base.AgentNotificationHandlersByMethod<NesProtocol>;
export type AgentRequestParamsByMethod = base.AgentRequestParamsByMethod<NesProtocol>;
export type AgentRequestResponsesByMethod = base.AgentRequestResponsesByMethod<NesProtocol>;
export type AgentNotificationParamsByMethod = base.AgentNotificationParamsByMethod<NesProtocol>;
export type ClientConnection = base.ClientConnection<NesProtocol>;
export type ClientConnectHandler = base.ClientConnectHandler<NesProtocol>;
export type ClientHandlerContext<Params> = base.ClientHandlerContext<Params, NesProtocol>;
export type ClientRequestContext<Params> = base.ClientRequestContext<Params, NesProtocol>;
export type ClientNotificationContext<Params> = base.ClientNotificationContext<Params, NesProtocol>;
export type ClientRequestHandler<Params, Response> = base.ClientRequestHandler<Params, Response, NesProtocol>;
export type ClientNotificationHandler<Params> = base.ClientNotificationHandler<Params, NesProtocol>;
export type ClientRequestHandlersByMethod = base.ClientRequestHandlersByMethod<NesProtocol>;
export type ClientNotificationHandlersByMethod = base.ClientNotificationHandlersByMethod<NesProtocol>;
