/**
 * Interop over real child processes on the 1.x class API (AgentSideConnection / ClientSideConnection):
 * every pairing of acpkit and the official SDK 1.9.0 (`sdk-1.9`), same fixture code, other import.
 */
import { classDriver } from "./support/class-driver.js";
import { COMBINATIONS, describeInterop } from "./support/scenario.js";

for (const combo of COMBINATIONS) {
  describeInterop(
    { api: "classes", fixture: "interop-agent-classes", driver: classDriver, requestCancellation: false },
    combo,
  );
}
