/**
 * The client app of the NES entry (`@acpkit/sdk/experimental/nes`): a `ClientApp` whose context sends `nes/*` and
 * `document/*` typed and checked, and reads their results by the NES schema.
 */
import type { AppOptions } from "../acp/app-types.js";
import { APP_FLAVOR } from "../acp/flavor.js";
import { nesFlavor } from "../acp/flavors.js";
import type { NesProtocol } from "../acp/nes-protocol.js";
import { ClientApp } from "./client-app.js";

/** `ClientApp` with NES and document sync. */
export class NesClientApp extends ClientApp<NesProtocol> {
  constructor(options: AppOptions = {}) {
    super({ ...options, unstable: true, [APP_FLAVOR]: nesFlavor } as AppOptions);
  }
}

/** `client()` of the NES entry. */
export function nesClient(options: AppOptions = {}): NesClientApp {
  return new NesClientApp(options);
}
