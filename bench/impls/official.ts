/**
 * Adapter for the official SDK, `@agentclientprotocol/sdk` 2.4.0, through its 2.x app API.
 */
import { sdkImpl, transformStreamPair } from "./sdk.js";

export const officialImpl = sdkImpl({
  name: "official",
  load: () => import("@agentclientprotocol/sdk"),
  // The same pair of TransformStreams the SDK builds for `client().connect(agentApp)`.
  memoryPair: async () => transformStreamPair(),
  memoryNote: "agent().connect / client().connect over a pair of TransformStreams (what client().connect(agentApp) does)",
});
