/**
 * `@acpkit/sdk/node`: the Node-only transports (the only library folder that imports `node:*`), and the session
 * stores on disk and in PostgreSQL.
 */
export { stdioStream, type StdioStreamOptions } from "../node/stdio/index.js";
export {
  AgentExitedError,
  childProcessStream,
  spawnAgentStream,
  type ChildProcessStreamOptions,
  type SpawnAgentOptions,
} from "../node/stdio/index.js";
export {
  nodeNdJsonStream,
  nodeByteSink,
  nodeByteSource,
  type NodeByteSinkOptions,
  type NodeByteSourceOptions,
  type NodeNdJsonOptions,
  type ReleaseInput,
} from "../node/stdio/index.js";
export {
  launchAgent,
  initializeWithDeadline,
  AgentSpawnError,
  AgentStartupTimeoutError,
  type LaunchAgentOptions,
  type LaunchedAgent,
  type Initializer,
  type InitializeDeadlineOptions,
} from "../node/process/index.js";
export { splitCommandLine } from "../node/process/index.js";
export { StderrTail, type StderrTailOptions } from "../node/process/index.js";
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
} from "../node/process/index.js";
export { ProcessTree, setCgroupContainment, TREE_ENV } from "../node/process/index.js";
export {
  confinePath,
  isWithin,
  realpathLongestExisting,
  OUTSIDE_ROOTS_CODE,
  type ConfinedPath,
  type RootsProvider,
} from "../node/fs/index.js";
export {
  FileSystemHost,
  selectLines,
  type FileOverlay,
  type FileSystemHostOptions,
  type HardLinkPolicy,
} from "../node/fs/index.js";
export { OutputBuffer } from "../node/terminal/index.js";
export {
  TerminalHost,
  type TerminalHostOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "../node/terminal/index.js";
export { FileSessionStore, type FileSessionStoreOptions } from "../node/store/index.js";
// Sessions in PostgreSQL (`pg` is an optional peer, loaded on first use), and the pieces of the PostgreSQL kit a
// user of the store needs: connection options, a pool to share, the errors to recognise. Typed structurally: the
// declarations need no `@types/pg`.
export { PostgresSessionStore, type PostgresSessionStoreOptions } from "../node/store/postgres-session-store.js";
export { PostgresServerBackend, type PostgresServerBackendOptions } from "../node/cluster/postgres-backend.js";
export { SessionLeaseError, type SessionLeaseReason } from "../node/store/postgres-session-lease.js";
export {
  createPostgresPool,
  type IsolationLevel,
  type PostgresOptions,
  type PostgresPool,
  type TransactionOptions,
} from "../node/postgres/pool.js";
export { PostgresCommitUnknownError, PostgresSchemaError, PostgresUnavailableError } from "../node/postgres/errors.js";
export type { RetryOptions } from "../node/postgres/retry.js";
export type { PgClient, PgNotification, PgQueryable, PgQueryResult, PgRow } from "../node/postgres/pg-types.js";
export { userDataDir, DATA_DIR_ENV } from "../node/store/index.js";
export { createMcpConnector, McpConnections, type McpConnectorOptions } from "../node/mcp/index.js";
export { runTerminalAuth } from "../node/auth/index.js";
export { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "../node/auth/index.js";
export { scriptPeerOver } from "../node/wire/index.js";
export { openCassetteFile, type CassetteFile } from "../node/wire/index.js";
export { connectRemote, nodeWebSocket, type ConnectRemoteOptions } from "../node/endpoint/index.js";
export { OptionalDependencyMissingError, type OptionalDependency } from "../node/optional-dependency.js";
export {
  openAgentEndpoint,
  isAgentUrl,
  type AgentEndpoint,
  type AgentEndpointOptions,
  type AgentSpec,
} from "../node/endpoint/index.js";
export {
  createCleartextServers,
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  generateToken,
  listenAcp,
  RequestBodyTooLargeError,
  stdioAgentConnector,
  type CleartextServers,
  type ListenAcpOptions,
  type ListeningAcpServer,
  type NodeHttpHandlerOptions,
  type NodeWebSocketUpgradeOptions,
  type NodeWebSocketUpgradeServer,
  type StdioAgentConnector,
  type StdioAgentConnectorOptions,
  type TlsOptions,
  type UpgradedWebSocket,
} from "../node/server/index.js";
export { defaultAllowedHosts, isLoopbackHost } from "../node/server/local-hosts.js";
