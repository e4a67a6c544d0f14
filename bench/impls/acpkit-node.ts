/**
 * Adapter for acpkit with its Node transports (`@acpkit/sdk/node`: `stdioStream()` in the agent, `childProcessStream()`
 * in the client) instead of the drop-in web-stream path. Opt-in: BENCH_IMPLS=...,acpkit-node.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { ACPKIT_ENTRY } from "./acpkit.js";
import { sdkImpl, type SdkModule, type SdkStream } from "./sdk.js";

const NODE_ENTRY = "../../src/entries/node.js";

interface AcpkitNode {
  stdioStream(): SdkStream;
  childProcessStream(child: ChildProcessWithoutNullStreams): SdkStream;
}

export const acpkitNodeImpl = sdkImpl({
  name: "acpkit-node",
  load: async () => (await import(ACPKIT_ENTRY)) as SdkModule,
  memoryPair: async () => {
    throw new Error("acpkit-node has no in-memory variant (see the acpkit row)");
  },
  memoryNote: "(none: same as acpkit)",
  hasMemory: false,
  stdio: async () => {
    const node = (await import(NODE_ENTRY)) as AcpkitNode;
    if (typeof node.stdioStream !== "function" || typeof node.childProcessStream !== "function") {
      throw new Error("@acpkit/sdk/node does not export stdioStream and childProcessStream");
    }
    return { agentStream: () => node.stdioStream(), clientStream: (child) => node.childProcessStream(child) };
  },
});
