/**
 * `toolkitAgent`: a complete `Agent` (the 1.x handler interface) built from a prompt handler. The toolkit answers
 * initialize, session/new, load, list, resume, close, delete, prompt and cancel (and, on a connection speaking the
 * unstable protocol, `session/fork`: see `ToolkitAgentOptions.unstable`); the author writes the turn:
 *
 * ```ts
 * new AgentSideConnection((conn) => toolkitAgent(conn, {
 *   store: new FileSessionStore(),
 *   onPrompt: async (turn) => {
 *     await turn.say("hi");
 *     const call = turn.toolCall({ title: "Read file", kind: "read" });
 *     await call.complete({ content: [textContent("...")] });
 *     return "end_turn";
 *   },
 * }), stream);
 * ```
 * Declared once in the options, per session at run time: `modes` / `configOptions` (answering `session/set_mode`
 * and `session/set_config_option`, see `SessionSettings`), slash `commands` (see `SessionCommands`), and `mcp`
 * servers (see `McpConnector`). Turns reach the client through `turn.readFile`, `runCommand`, `elicit`, ...
 * Capabilities are advertised from what is really implemented (see `SessionManager.capabilities`).
 * @see https://agentclientprotocol.com/protocol/overview
 */
import { RequestError } from "../../jsonrpc/index.js";
import type { MaybePromise } from "../../jsonrpc/messages.js";
import {
  PROTOCOL_VERSION,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type AuthMethod,
  type Implementation,
  type InitializeRequest,
  type InitializeResponse,
  type McpCapabilities,
  type McpServer,
  type LoadSessionResponse,
  type NewSessionResponse,
  type PromptCapabilities,
} from "../../protocol/index.js";
import type { ForkSessionRequest, ForkSessionResponse } from "../../protocol/unstable.js";
import type { Agent } from "../../acp/agent-handler.js";
import { SessionCommands, validateCommands, type SlashCommand } from "./commands.js";
import {
  resolveSettings,
  SessionSettings,
  supportsBooleanOptions,
  type SessionSettingsDeclaration,
} from "./config-options.js";
import type { McpConnector } from "./mcp-connector.js";
import type { MessageMcpNotification } from "../../protocol/unstable.js";
import { ACP_CONNECTION } from "../../acp/connect.js";
import type { HasConnectionContext } from "../../acp/mcp/binding.js";
import { runPromptTurn, type PromptHandler, type PromptTurn, type TurnPolicy } from "./prompt-turn.js";
import { REPLAY_META_KEY } from "./replay.js";
import type { ClientPort, SessionOrigin, ToolkitSession } from "./session.js";
import { SessionManager, type SessionManagerOptions, type SessionStateContext } from "./session-manager.js";

/** Options of `toolkitAgent`. */
export interface ToolkitAgentOptions<S = unknown> extends SessionManagerOptions<S>, SessionSettingsDeclaration<S> {
  /** Runs each prompt turn. */
  onPrompt: PromptHandler<S>;
  /** A prompt while a turn runs: "reject" (default, -32600) or "queue". */
  turnPolicy?: TurnPolicy;
  /** After a cancel, how long the handler may take to stop before `cancelled` is answered anyway. Default 50 ms. */
  cancelGraceMs?: number;
  agentInfo?: Implementation;
  promptCapabilities?: PromptCapabilities;
  mcpCapabilities?: McpCapabilities;
  authMethods?: AuthMethod[];
  authenticate?: (params: AuthenticateRequest) => MaybePromise<AuthenticateResponse | void>;
  /**
   * Titles a session that has none from its first prompt (sending `session_info_update`). Default: the first line
   * of the prompt's text, at most 80 characters. `false` turns it off.
   */
  titleFromPrompt?: false | ((text: string) => string | undefined);
  /** Called when a session became live (new, loaded or resumed), after any replay, before the response. */
  onSessionReady?: (session: ToolkitSession<S>, origin: SessionOrigin) => MaybePromise<void>;
  /** Slash commands: advertised once a session is live, dispatched when a prompt starts with `/name`. */
  commands?: SlashCommand<S>[];
  /**
   * Connects each session to the MCP servers the client names (`createMcpConnector()` from `@acpkit/sdk/node`); its
   * capabilities are advertised unless `mcpCapabilities` is given. A server that fails is reported in the session.
   */
  mcp?: McpConnector;
  /**
   * Whether to implement and advertise the unstable methods (today `session/fork`, as `unstable_forkSession` and
   * `sessionCapabilities.fork`; fork also needs a store). Default: whether the connection speaks the unstable
   * protocol, i.e. is `@acpkit/sdk/unstable`'s `AgentSideConnection` (its `connection.flavor.name` is "unstable"). A
   * stable connection neither routes nor validates `session/fork`, so forcing `true` there is for custom ports only.
   */
  unstable?: boolean;
}

/** The `Agent` plus the manager behind it (for tests and for authors who need the live sessions). */
export type ToolkitAgent<S = unknown> = Agent & { readonly sessions: SessionManager<S> };

function defaultTitle(text: string): string | undefined {
  const line = text.trim().split("\n", 1)[0]?.trim();
  if (!line) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * True when the port is a connection speaking the unstable protocol (`@acpkit/sdk/unstable`'s `AgentSideConnection`).
 */
function speaksUnstable(client: ClientPort): boolean {
  const { connection } = client as { connection?: { flavor?: { name?: unknown } } };
  return connection?.flavor?.name === "unstable";
}

/** Builds an `Agent` that implements sessions, persistence, prompt turns and cancellation around `options.onPrompt`. */
export function toolkitAgent<S = unknown>(client: ClientPort, options: ToolkitAgentOptions<S>): ToolkitAgent<S> {
  const settings =
    options.modes !== undefined || options.configOptions !== undefined ? resolveSettings(options) : undefined;
  if (options.commands !== undefined) validateCommands(options.commands);
  const activate = async (context: SessionStateContext<S>) => {
    const { session, history } = context;
    if (settings !== undefined) {
      session.settings = new SessionSettings<S>(session, options, {
        booleanOptions: supportsBooleanOptions(session.clientCapabilities),
        resolved: settings,
      });
      session.settings.restore(history);
    }
    if (options.commands !== undefined) session.commands = new SessionCommands<S>(session, options.commands);
    await options.onActivate?.(context);
  };
  const sessions = new SessionManager<S>(client, { ...options, onActivate: activate });
  const fork = (options.unstable ?? speaksUnstable(client)) && sessions.store !== undefined;
  const titleOf = options.titleFromPrompt === false ? undefined : (options.titleFromPrompt ?? defaultTitle);
  const ready = async (
    session: ToolkitSession<S>,
    origin: SessionOrigin,
    mcpServers: readonly McpServer[] | undefined,
  ) => {
    if (options.mcp !== undefined) await connectMcp(session, options.mcp, mcpServers ?? [], client);
    await options.onSessionReady?.(session, origin);
    afterResponse(session);
    return session;
  };
  const respond = (session: ToolkitSession<S>) => session.settings?.responseFields() ?? {};
  const onPrompt: PromptHandler<S> =
    options.commands === undefined
      ? options.onPrompt
      : (turn) => turn.session.commands?.dispatch(turn) ?? options.onPrompt(turn);
  const settingsOf = (sessionId: string) => {
    const found = sessions.get(sessionId).settings;
    if (found === undefined)
      throw RequestError.invalidParams({ sessionId }, "this agent declares no modes or config options");
    return found;
  };
  const setTitle = async (turn: PromptTurn<never>) => {
    const session = turn.session as ToolkitSession<S>;
    if (titleOf === undefined || session.title !== null) return;
    const title = titleOf(turn.text);
    if (title !== undefined) await session.setTitle(title);
  };

  return {
    sessions,
    initialize(params: InitializeRequest): InitializeResponse {
      sessions.clientCapabilities = params.clientCapabilities;
      const response: InitializeResponse = {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          ...sessions.capabilities({ fork }),
          ...(options.promptCapabilities ? { promptCapabilities: options.promptCapabilities } : {}),
          ...((options.mcpCapabilities ?? options.mcp?.capabilities)
            ? { mcpCapabilities: options.mcpCapabilities ?? options.mcp!.capabilities }
            : {}),
        },
        authMethods: options.authMethods ?? [],
      };
      if (options.agentInfo) response.agentInfo = options.agentInfo;
      return response;
    },
    authenticate(params: AuthenticateRequest) {
      if (options.authenticate === undefined)
        throw RequestError.invalidParams({ methodId: params.methodId }, "this agent has no authentication methods");
      return options.authenticate(params);
    },
    async newSession(params): Promise<NewSessionResponse> {
      const session = await ready(await sessions.newSession(params), "new", params.mcpServers);
      return { sessionId: session.sessionId, ...respond(session) };
    },
    async loadSession(params) {
      const session = await ready(await sessions.loadSession(params), "load", params.mcpServers);
      const response: LoadSessionResponse = respond(session);
      // Records that could not be replayed are reported to the client too, not only in the agent's log.
      if (session.replay !== undefined && session.replay.skipped > 0)
        response._meta = { ...response._meta, [REPLAY_META_KEY]: { skipped: session.replay.skipped } };
      return response;
    },
    async resumeSession(params) {
      return respond(await ready(await sessions.resumeSession(params), "resume", params.mcpServers));
    },
    ...(fork
      ? {
          async unstable_forkSession(params: ForkSessionRequest): Promise<ForkSessionResponse> {
            // The unstable McpServer adds MCP-over-ACP servers; the connector gets them as session/new would on this
            // connection.
            const session = await ready(
              await sessions.forkSession(params),
              "fork",
              params.mcpServers as McpServer[] | undefined,
            );
            return { sessionId: session.sessionId, ...respond(session) };
          },
        }
      : {}),
    ...(settings !== undefined && settings.modes.length > 0
      ? {
          async setSessionMode(params: { sessionId: string; modeId: string }) {
            await settingsOf(params.sessionId).setMode(params.modeId, "client");
            return {};
          },
        }
      : {}),
    ...(settings !== undefined && settings.options.length > 0
      ? {
          async setSessionConfigOption(params: { sessionId: string; configId: string; value: string | boolean }) {
            return {
              configOptions: await settingsOf(params.sessionId).setConfigOption(
                params.configId,
                params.value,
                "client",
              ),
            };
          },
        }
      : {}),
    async closeSession(params) {
      await sessions.closeSession(params.sessionId);
      return {};
    },
    async deleteSession(params) {
      await sessions.deleteSession(params.sessionId);
      return {};
    },
    listSessions(params) {
      return sessions.listSessions(params);
    },
    prompt(params, context) {
      const session = sessions.get(params.sessionId);
      const runOptions = {
        beforeHandler: setTitle,
        ...(options.turnPolicy ? { policy: options.turnPolicy } : {}),
        ...(context ? { requestSignal: context.signal } : {}),
      };
      return runPromptTurn(
        session,
        params,
        onPrompt,
        options.cancelGraceMs === undefined ? runOptions : { ...runOptions, cancelGraceMs: options.cancelGraceMs },
      );
    },
    ...(options.mcp?.handleMcpMessage !== undefined && ACP_CONNECTION in client
      ? {
          unstable_mcpMessage(params: MessageMcpNotification) {
            options.mcp!.handleMcpMessage!(params, client as HasConnectionContext);
          },
        }
      : {}),
    cancel(params) {
      sessions.cancel(params.sessionId);
    },
  };
}

/** Connects the session's MCP servers and closes them with the session. */
async function connectMcp<S>(
  session: ToolkitSession<S>,
  connector: McpConnector,
  servers: readonly McpServer[],
  client: ClientPort,
): Promise<void> {
  const connection = ACP_CONNECTION in client ? (client as HasConnectionContext) : undefined;
  const tools = await connector.connect(servers, {
    sessionId: session.sessionId,
    cwd: session.cwd,
    ...(connection ? { connection } : {}),
  });
  session.mcp = tools;
  session.onDispose(() => tools.close());
}

/**
 * Work that needs the client to know the session id: runs after the new/load/resume response was sent (a macrotask
 * runs after the promise chain that writes the response). Advertises slash commands and reports MCP servers that
 * failed to start as an agent message.
 */
function afterResponse<S>(session: ToolkitSession<S>): void {
  const failed = session.mcp?.servers.filter((server) => server.state === "failed") ?? [];
  if (session.commands === undefined && failed.length === 0) return;
  setTimeout(() => {
    const report = async () => {
      if (session.commands !== undefined) await session.commands.announce();
      if (failed.length > 0) {
        const lines = failed.map((server) => `- ${server.name} (${server.transport}): ${server.error ?? "failed"}`);
        const text =
          `${failed.length === 1 ? "An MCP server" : "Some MCP servers"} could not be started; the session ` +
          `continues without ${failed.length === 1 ? "it" : "them"}:\n${lines.join("\n")}`;
        await session.client.notify("session/update", {
          sessionId: session.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
        });
      }
    };
    report().catch((error: unknown) =>
      session.logger.warn("could not send the session's after-setup updates", {
        sessionId: session.sessionId,
        detail: String(error),
      }),
    );
  }, 0);
}
