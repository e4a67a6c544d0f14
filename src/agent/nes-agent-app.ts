/**
 * The agent app of the NES entry (`@acpkit/sdk/experimental/nes`): an `AgentApp` speaking the unstable protocol plus
 * Next Edit Suggestions and document sync. `nes/*` and `document/*` handlers get validated, typed params; `initialize`
 * carries the NES capabilities. As in the official entry, a `nes/close` handler may return nothing (answered `{}`).
 */
import type { AppOptions } from "../acp/app-types.js";
import { APP_FLAVOR } from "../acp/flavor.js";
import { nesFlavor } from "../acp/flavors.js";
import type { NesProtocol } from "../acp/nes-protocol.js";
import { AgentApp } from "./agent-app.js";

/** `AgentApp` with NES and document sync. */
export class NesAgentApp extends AgentApp<NesProtocol> {
  constructor(options: AppOptions = {}) {
    super({ ...options, unstable: true, [APP_FLAVOR]: nesFlavor } as AppOptions);
  }
}

/** `agent()` of the NES entry. */
export function nesAgent(options: AppOptions = {}): NesAgentApp {
  return new NesAgentApp(options);
}
