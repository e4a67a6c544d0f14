/**
 * Getting a session for `acp exec`: `session/new`, or an earlier one (`--session ID`: `session/resume` when the
 * agent supports it, else `session/load`; `--resume`: the most recent session `session/list` gives for the cwd),
 * authenticating when the agent answers `auth_required` (-32000) and retrying once.
 */
import { describeAuthMethods } from "@acpkit/sdk/client-toolkit";
import type { ClientSideConnection } from "@acpkit/sdk";
import type {
  AuthMethod,
  ClientCapabilities,
  InitializeResponse,
  McpServer,
  SessionConfigOption,
  SessionModeState,
} from "@acpkit/sdk";
import { ExitCode } from "./exit-codes.js";
import { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "@acpkit/sdk/node";

/** A failure with the exit code it maps to. */
export class ExecFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = "ExecFailure";
  }
}

export interface SetupInput {
  connection: ClientSideConnection;
  init: InitializeResponse;
  clientCapabilities: ClientCapabilities;
  agentArgv: readonly string[];
  cwd: string;
  mcpServers: McpServer[];
  session: string | undefined;
  resume: boolean;
  auth: string | undefined;
  interactive: boolean;
  note: (text: string) => void;
}

export interface SetupResult {
  sessionId: string;
  how: "new" | "load" | "resume";
  modes?: SessionModeState | null;
  configOptions?: SessionConfigOption[] | null;
}

/** Authenticates (when `--auth` was given, first), then gets the session; see the file comment. */
export async function setUpSession(input: SetupInput): Promise<SetupResult> {
  const context: AuthContext = {
    connection: input.connection,
    methods: input.init.authMethods,
    clientCapabilities: input.clientCapabilities,
    interactive: input.interactive,
    agentArgv: input.agentArgv,
    cwd: input.cwd,
    note: (text) => input.note(`acp exec: ${text}`),
  };
  try {
    if (input.auth !== undefined) await authenticateWith(context, input.auth);
    return await withAuthentication(context, () => openSession(input), input.auth);
  } catch (error) {
    if (error instanceof AuthFailure) throw new ExecFailure(ExitCode.auth, error.message);
    throw error;
  }
}

async function openSession(input: SetupInput): Promise<SetupResult> {
  const { connection, cwd, mcpServers } = input;
  let sessionId = input.session;
  if (input.resume) sessionId = await latestSession(input);
  if (sessionId === undefined) {
    const response = await connection.newSession({ cwd, mcpServers });
    // A session without an id cannot be prompted: refuse the answer rather than prompt "undefined".
    const issued = (response as { sessionId?: unknown } | null)?.sessionId;
    if (typeof issued !== "string" || issued === "")
      throw new ExecFailure(
        ExitCode.startup,
        `the agent answered session/new without a sessionId (it gave ${issued === undefined ? "none" : JSON.stringify(issued)}), so there is no session to prompt; the agent does not follow the protocol (a string sessionId is required)`,
      );
    return { sessionId: issued, how: "new", modes: response.modes, configOptions: response.configOptions };
  }
  if (connection.peerSupports("session/resume")) {
    const response = await connection.resumeSession({ sessionId, cwd, mcpServers });
    return { sessionId, how: "resume", modes: response.modes, configOptions: response.configOptions };
  }
  if (connection.peerSupports("session/load")) {
    const response = await connection.loadSession({ sessionId, cwd, mcpServers });
    return { sessionId, how: "load", modes: response.modes, configOptions: response.configOptions };
  }
  throw new ExecFailure(
    ExitCode.startup,
    "the agent cannot continue a session (it advertises neither session/resume nor session/load); drop " +
      "--session/--resume",
  );
}

async function latestSession(input: SetupInput): Promise<string> {
  if (!input.connection.peerSupports("session/list")) {
    throw new ExecFailure(
      ExitCode.startup,
      "--resume needs an agent that lists its sessions (session/list); give --session ID instead",
    );
  }
  const { sessions } = await input.connection.listSessions({ cwd: input.cwd });
  if (sessions.length === 0)
    throw new ExecFailure(
      ExitCode.startup,
      `the agent has no earlier session for ${input.cwd}; run without --resume to start one`,
    );
  const time = (updatedAt: string | null | undefined) => (updatedAt ? Date.parse(updatedAt) || 0 : 0);
  const latest = sessions.reduce((best, session) => (time(session.updatedAt) > time(best.updatedAt) ? session : best));
  return latest.sessionId;
}

/** Text telling what the agent's methods are (for --logout and auth errors). */
export function authMethodsText(methods: readonly AuthMethod[] | null | undefined): string {
  return describeAuthMethods(methods ?? []);
}
