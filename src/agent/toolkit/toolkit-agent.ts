/**
 * `toolkitAgent`: a complete `Agent` (the 1.x handler interface) built from a prompt handler. The toolkit answers
 * initialize, session/new, load, list, resume, close, delete, prompt and cancel; the author writes the turn:
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
  type NewSessionResponse,
  type PromptCapabilities,
} from "../../protocol/index.js";
import type { Agent } from "../../acp/agent-handler.js";
import { runPromptTurn, type PromptHandler, type PromptTurn, type TurnPolicy } from "./prompt-turn.js";
import type { ClientPort, SessionOrigin, ToolkitSession } from "./session.js";
import { SessionManager, type SessionManagerOptions } from "./session-manager.js";

/** Options of `toolkitAgent`. */
export interface ToolkitAgentOptions<S = unknown> extends SessionManagerOptions<S> {
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
}

/** The `Agent` plus the manager behind it (for tests and for authors who need the live sessions). */
export type ToolkitAgent<S = unknown> = Agent & { readonly sessions: SessionManager<S> };

function defaultTitle(text: string): string | undefined {
  const line = text.trim().split("\n", 1)[0]?.trim();
  if (!line) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Builds an `Agent` that implements sessions, persistence, prompt turns and cancellation around `options.onPrompt`. */
export function toolkitAgent<S = unknown>(client: ClientPort, options: ToolkitAgentOptions<S>): ToolkitAgent<S> {
  const sessions = new SessionManager<S>(client, options);
  const titleOf = options.titleFromPrompt === false ? undefined : (options.titleFromPrompt ?? defaultTitle);
  const ready = async (session: ToolkitSession<S>, origin: SessionOrigin) => {
    await options.onSessionReady?.(session, origin);
    return session;
  };
  const setTitle = async (turn: PromptTurn<never>) => {
    const session = turn.session as ToolkitSession<S>;
    if (titleOf === undefined || session.title !== null) return;
    const title = titleOf(turn.text);
    if (title !== undefined) await session.setTitle(title);
  };

  return {
    sessions,
    initialize(_params: InitializeRequest): InitializeResponse {
      const response: InitializeResponse = {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          ...sessions.capabilities(),
          ...(options.promptCapabilities ? { promptCapabilities: options.promptCapabilities } : {}),
          ...(options.mcpCapabilities ? { mcpCapabilities: options.mcpCapabilities } : {}),
        },
        authMethods: options.authMethods ?? [],
      };
      if (options.agentInfo) response.agentInfo = options.agentInfo;
      return response;
    },
    authenticate(params: AuthenticateRequest) {
      if (options.authenticate === undefined) throw RequestError.invalidParams({ methodId: params.methodId }, "this agent has no authentication methods");
      return options.authenticate(params);
    },
    async newSession(params): Promise<NewSessionResponse> {
      const session = await ready(await sessions.newSession(params), "new");
      return { sessionId: session.sessionId };
    },
    async loadSession(params) {
      await ready(await sessions.loadSession(params), "load");
      return {};
    },
    async resumeSession(params) {
      await ready(await sessions.resumeSession(params), "resume");
      return {};
    },
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
    prompt(params) {
      const session = sessions.get(params.sessionId);
      const runOptions = { beforeHandler: setTitle, ...(options.turnPolicy ? { policy: options.turnPolicy } : {}) };
      return runPromptTurn(session, params, options.onPrompt, options.cancelGraceMs === undefined ? runOptions : { ...runOptions, cancelGraceMs: options.cancelGraceMs });
    },
    cancel(params) {
      sessions.cancel(params.sessionId);
    },
  };
}
