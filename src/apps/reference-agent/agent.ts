/**
 * The reference agent (`acp agent`): the toolkit's agent (sessions, persistence and replay, prompt turns,
 * cancellation) plus modes, the `model` config option, the session's MCP servers and the slash command list.
 *
 * Contracts kept here: session responses (`new`, `load`, `resume`) carry `modes` and `configOptions`; the mode
 * and model choice are recorded in the session's history and restored on load and resume;
 * `available_commands_update` is sent right after each session response (not before it: a client may drop updates
 * for a session it does not know yet).
 * @see https://agentclientprotocol.com/protocol/session-modes
 * @see https://agentclientprotocol.com/protocol/slash-commands
 */
import type { AgentSideConnection } from "../../agent/agent-side-connection.js";
import { toolkitAgent, type SessionStore, type ToolkitSession } from "../../agent/toolkit/index.js";
import type { Agent } from "../../acp/agent-handler.js";
import { RequestError } from "../../jsonrpc/index.js";
import type { McpServer, SetSessionConfigOptionRequest, SetSessionModeRequest } from "../../protocol/index.js";
import { COMMANDS } from "./commands/index.js";
import { availableCommands } from "./commands/registry.js";
import { checkConfigChange, configOptions, defaultModelChoice } from "./config-options.js";
import type { AgentSettings } from "./context.js";
import { connectMcpServers, NO_MCP_SERVERS, type McpHub } from "./mcp.js";
import { isModeId, modeState } from "./modes.js";
import { promptHandler } from "./prompt.js";
import { dataRecord, restoreState, type RefState } from "./state.js";

export const AGENT_INFO = { name: "acpkit-reference-agent", title: "acp reference agent", version: "0.1.0" };

/** Builds the reference agent on `conn`, persisting sessions in `store`. */
export function referenceAgent(conn: AgentSideConnection, store: SessionStore, settings: AgentSettings): Agent {
  const hubs = new Map<string, McpHub>();
  const inner = toolkitAgent<RefState>(conn, {
    store,
    logger: settings.logger,
    agentInfo: AGENT_INFO,
    promptCapabilities: { image: true, audio: true, embeddedContext: true },
    createState: ({ history }) => restoreState(history, defaultModelChoice(settings.model)),
    titleFromPrompt: (text) => {
      const line = text.trim().split("\n", 1)[0]?.trim();
      if (!line || line.startsWith("/")) return undefined;
      return line.length > 80 ? `${line.slice(0, 79)}…` : line;
    },
    onPrompt: promptHandler({
      settings,
      clientCapabilities: () => conn.clientCapabilities ?? {},
      mcp: (sessionId) => hubs.get(sessionId) ?? NO_MCP_SERVERS,
    }),
  });
  const sessionOf = (sessionId: string) => inner.sessions.get(sessionId);

  /** After a session became live: its MCP servers, then (after the response) the command list. */
  const ready = async (sessionId: string, mcpServers: McpServer[]) => {
    const session = sessionOf(sessionId);
    session.state.mcpServers = [...mcpServers];
    await hubs.get(sessionId)?.close();
    hubs.set(sessionId, await connectMcpServers(mcpServers));
    setImmediate(() => void announceCommands(session));
    return { modes: modeState(session.state.mode), configOptions: configOptions(settings.model, session.state.model) };
  };
  const announceCommands = (session: ToolkitSession<RefState>) =>
    session.send({ sessionUpdate: "available_commands_update", availableCommands: availableCommands(COMMANDS) }).catch((error: unknown) => {
      settings.logger.warn("could not send available_commands_update", { sessionId: session.sessionId, detail: String(error) });
    });
  const drop = async (sessionId: string) => {
    const hub = hubs.get(sessionId);
    hubs.delete(sessionId);
    await hub?.close();
  };
  conn.signal.addEventListener("abort", () => void Promise.all([...hubs.keys()].map(drop)), { once: true });

  return {
    ...inner,
    async newSession(params) {
      const { sessionId } = await inner.newSession(params);
      return { sessionId, ...(await ready(sessionId, params.mcpServers)) };
    },
    async loadSession(params) {
      await inner.loadSession!(params);
      return ready(params.sessionId, params.mcpServers);
    },
    async resumeSession(params) {
      await inner.resumeSession!(params);
      return ready(params.sessionId, params.mcpServers ?? []);
    },
    async closeSession(params) {
      await inner.closeSession!(params);
      await drop(params.sessionId);
      return {};
    },
    async deleteSession(params) {
      await inner.deleteSession!(params);
      await drop(params.sessionId);
      return {};
    },
    async setSessionMode(params: SetSessionModeRequest) {
      const session = sessionOf(params.sessionId);
      if (!isModeId(params.modeId)) throw RequestError.invalidParams({ modeId: params.modeId }, `unknown mode "${params.modeId}": use ask, code or architect`);
      session.state.mode = params.modeId;
      session.record(dataRecord({ ref: "mode", mode: params.modeId }));
      await session.flush();
      return {};
    },
    async setSessionConfigOption(params: SetSessionConfigOptionRequest) {
      const session = sessionOf(params.sessionId);
      session.state.model = checkConfigChange(settings.model, params);
      session.record(dataRecord({ ref: "model", model: session.state.model }));
      await session.flush();
      return { configOptions: configOptions(settings.model, session.state.model) };
    },
  };
}
