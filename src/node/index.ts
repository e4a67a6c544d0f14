/**
 * `acpkit/node`: the Node-only transports (the only library folder that imports `node:*`).
 */
export { stdioStream, type StdioStreamOptions } from "./stdio.js";
export { AgentExitedError, childProcessStream, spawnAgentStream, type ChildProcessStreamOptions, type SpawnAgentOptions } from "./child.js";
export { nodeNdJsonStream, nodeByteSink, nodeByteSource, type NodeNdJsonOptions, type ReleaseInput } from "./node-bytes.js";
