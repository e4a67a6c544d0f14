/**
 * `node/stdio/`: newline-delimited JSON over Node streams, without the web-stream hop: this process's stdin and
 * stdout (`stdioStream`, for an agent), a child's pipes (`childProcessStream`, `spawnAgentStream`, for a client),
 * and any `Readable`/`Writable` pair (`nodeNdJsonStream`). Same contract as `ndJsonStream` (src/transports).
 *
 * Spec: https://agentclientprotocol.com/protocol/transports
 */
export { stdioStream, type StdioStreamOptions } from "./stdio.js";
export {
  AgentExitedError,
  childProcessStream,
  spawnAgentStream,
  type ChildProcessStreamOptions,
  type SpawnAgentOptions,
} from "./child.js";
export {
  nodeNdJsonStream,
  nodeByteSink,
  nodeByteSource,
  type NodeByteSinkOptions,
  type NodeByteSourceOptions,
  type NodeNdJsonOptions,
  type ReleaseInput,
} from "./node-bytes.js";
