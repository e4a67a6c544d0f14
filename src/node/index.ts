/**
 * `acpkit/node`: the Node-only transports (the only library folder that imports `node:*`).
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
  type NodeNdJsonOptions,
  type ReleaseInput,
} from "./node-bytes.js";
export {
  launchAgent,
  initializeWithDeadline,
  AgentSpawnError,
  AgentStartupTimeoutError,
  type LaunchAgentOptions,
  type LaunchedAgent,
  type Initializer,
  type InitializeDeadlineOptions,
} from "./agent-launcher.js";
export { splitCommandLine } from "./command-line.js";
export { StderrTail, type StderrTailOptions } from "./stderr-tail.js";
export {
  signalGroup,
  isGroupAlive,
  isProcessAlive,
  terminateGroup,
  setOrphanWatchdog,
  type ExitStatus,
} from "./process-group.js";
export { ProcessTree, setCgroupContainment, TREE_ENV } from "./process-tree.js";
export {
  confinePath,
  isWithin,
  realpathLongestExisting,
  OUTSIDE_ROOTS_CODE,
  type ConfinedPath,
  type RootsProvider,
} from "./path-confinement.js";
export {
  FileSystemHost,
  selectLines,
  type FileOverlay,
  type FileSystemHostOptions,
  type HardLinkPolicy,
} from "./fs-host.js";
export { OutputBuffer } from "./output-buffer.js";
export {
  TerminalHost,
  type TerminalHostOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "./terminal-host.js";
export { FileSessionStore, type FileSessionStoreOptions } from "./file-session-store.js";
export { userDataDir, DATA_DIR_ENV } from "./data-dir.js";
export { createMcpConnector, McpConnections, type McpConnectorOptions } from "./mcp-servers.js";
export { runTerminalAuth } from "./terminal-auth.js";
export { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "./authenticate.js";
export { scriptPeerOver } from "./wire-peer.js";
export { openCassetteFile, type CassetteFile } from "./cassette-file.js";
export { connectRemote, nodeWebSocket, type ConnectRemoteOptions } from "./remote.js";
export { OptionalDependencyMissingError, type OptionalPeer } from "./optional-peer.js";
export {
  openAgentEndpoint,
  isAgentUrl,
  type AgentEndpoint,
  type AgentEndpointOptions,
  type AgentSpec,
} from "./agent-endpoint.js";
export * from "./remote/index.js";
