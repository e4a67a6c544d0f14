/**
 * The v2 `AgentApp` of `@acpkit/sdk/experimental/v2/unstable`: speaks protocol v2 with its unstable additions and types
 * its handlers with the unstable method maps.
 */
import { APP_FLAVOR } from "../../acp/flavor.js";
import type { V2AppOptions, V2UnstableProtocol } from "../../acp/v2/app-types.js";
import { v2UnstableFlavor } from "../../acp/v2-flavors.js";
import { AgentApp } from "./agent-app.js";

export class UnstableV2AgentApp extends AgentApp<V2UnstableProtocol> {
  constructor(options: V2AppOptions = {}) {
    super({ ...options, [APP_FLAVOR]: v2UnstableFlavor } as V2AppOptions);
  }
}

/** `agent()` of the v2 unstable entry. */
export function unstableV2Agent(options: V2AppOptions = {}): UnstableV2AgentApp {
  return new UnstableV2AgentApp(options);
}
