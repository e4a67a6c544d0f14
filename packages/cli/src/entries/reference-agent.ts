/**
 * `@acpkit/cli/reference-agent`: the reference agent of `acp agent` as a library, to host it in your own process
 * (behind your own server, in tests): `referenceAgent(client, store, settings)` gives the toolkit agent's handlers.
 */
export { AGENT_INFO, referenceAgent } from "../apps/reference-agent/agent.js";
export { parseLogLevel, stderrLogger, type LogLevel } from "../apps/reference-agent/logger.js";
