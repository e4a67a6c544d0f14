/**
 * The v2 `ClientApp` of `@acpkit/sdk/experimental/v2/unstable`: speaks protocol v2 with its unstable additions and
 * types its handlers with the unstable method maps.
 */
import { APP_FLAVOR } from "../../acp/flavor.js";
import type { V2AppOptions, V2UnstableProtocol } from "../../acp/v2/app-types.js";
import { v2UnstableFlavor } from "../../acp/v2-flavors.js";
import { ClientApp } from "./client-app.js";

export class UnstableV2ClientApp extends ClientApp<V2UnstableProtocol> {
  constructor(options: V2AppOptions = {}) {
    super({ ...options, [APP_FLAVOR]: v2UnstableFlavor } as V2AppOptions);
  }
}

/** `client()` of the v2 unstable entry. */
export function unstableV2Client(options: V2AppOptions = {}): UnstableV2ClientApp {
  return new UnstableV2ClientApp(options);
}
