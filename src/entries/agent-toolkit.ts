/**
 * `@acpkit/sdk/agent-toolkit`: what an agent author builds on beyond the wire. Sessions with persistence and replay,
 * prompt turns with cancellation, tool calls, permissions and plans. Browser-safe; the session stores on disk
 * (`FileSessionStore`) and in PostgreSQL (`PostgresSessionStore`) are in `@acpkit/sdk/node`.
 */
export * from "../agent/toolkit/index.js";
export * from "../agent/toolkit/session-store.js";
export { MemorySessionStore } from "../agent/toolkit/memory-session-store.js";
export { toolkitAgentConnector } from "../agent/remote-connectors.js";
