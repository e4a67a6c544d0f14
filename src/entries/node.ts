/**
 * `@acpkit/sdk/node`: the Node-only transports (the only library folder that imports `node:*`).
 */
export { stdioStream, type StdioStreamOptions } from "../node/stdio/stdio.js";
export {
  AgentExitedError,
  childProcessStream,
  spawnAgentStream,
  type ChildProcessStreamOptions,
  type SpawnAgentOptions,
} from "../node/stdio/child.js";
export {
  nodeNdJsonStream,
  nodeByteSink,
  nodeByteSource,
  type NodeNdJsonOptions,
  type ReleaseInput,
} from "../node/stdio/node-bytes.js";
export {
  launchAgent,
  initializeWithDeadline,
  AgentSpawnError,
  AgentStartupTimeoutError,
  type LaunchAgentOptions,
  type LaunchedAgent,
  type Initializer,
  type InitializeDeadlineOptions,
} from "../node/process/agent-launcher.js";
export { splitCommandLine } from "../node/process/command-line.js";
export { StderrTail, type StderrTailOptions } from "../node/process/stderr-tail.js";
export {
  signalGroup,
  isGroupAlive,
  isProcessAlive,
  terminateGroup,
  setOrphanWatchdog,
  type ExitStatus,
  childExited,
  trackGroup,
  untrackGroup,
  waitUntil,
} from "../node/process/process-group.js";
export { ProcessTree, setCgroupContainment, TREE_ENV } from "../node/process/process-tree.js";
export {
  confinePath,
  isWithin,
  realpathLongestExisting,
  OUTSIDE_ROOTS_CODE,
  type ConfinedPath,
  type RootsProvider,
} from "../node/fs/path-confinement.js";
export {
  FileSystemHost,
  selectLines,
  type FileOverlay,
  type FileSystemHostOptions,
  type HardLinkPolicy,
} from "../node/fs/fs-host.js";
export { OutputBuffer } from "../node/terminal/output-buffer.js";
export {
  TerminalHost,
  type TerminalHostOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "../node/terminal/terminal-host.js";
export { FileSessionStore, type FileSessionStoreOptions } from "../node/store/file-session-store.js";
export { userDataDir, DATA_DIR_ENV } from "../node/store/data-dir.js";
export { createMcpConnector, McpConnections, type McpConnectorOptions } from "../node/mcp/mcp-servers.js";
export { runTerminalAuth } from "../node/auth/terminal-auth.js";
export { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "../node/auth/authenticate.js";
export { scriptPeerOver } from "../node/wire/wire-peer.js";
export { openCassetteFile, type CassetteFile } from "../node/wire/cassette-file.js";
export { connectRemote, nodeWebSocket, type ConnectRemoteOptions } from "../node/endpoint/connect-remote.js";
export { OptionalDependencyMissingError, type OptionalDependency } from "../node/optional-dependency.js";
export {
  openAgentEndpoint,
  isAgentUrl,
  type AgentEndpoint,
  type AgentEndpointOptions,
  type AgentSpec,
} from "../node/endpoint/agent-endpoint.js";
export * from "../node/server/index.js";
export { defaultAllowedHosts, isLoopbackHost } from "../node/server/local-hosts.js";
