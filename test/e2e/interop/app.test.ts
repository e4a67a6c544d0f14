/**
 * Interop over real child processes on the 2.x app API (agent() / client(), methods, contexts, sessions):
 * every pairing of acpkit and the official SDK 2.4.0, same fixture code, other import.
 */
import { appDriver } from "./support/app-driver.js";
import { COMBINATIONS, describeInterop } from "./support/scenario.js";

for (const combo of COMBINATIONS) {
  describeInterop({ api: "app", fixture: "interop-agent-app", driver: appDriver, requestCancellation: true }, combo);
}
