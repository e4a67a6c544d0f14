/**
 * Getting a session for `acp exec`: `session/new`, or an earlier one (`--session ID`: `session/resume` when the
 * agent supports it, else `session/load`; `--resume`: the most recent session `session/list` gives for the cwd),
 * authenticating when the agent answers `auth_required` (-32000) and retrying once.
 */
import { chooseAuthMethod, describeAuthMethods, isAuthRequired, type AuthChoice } from "../../client/auth.js";
import type { ClientSideConnection } from "../../client/client-side-connection.js";
import type { AuthMethod, ClientCapabilities, InitializeResponse, McpServer, SessionConfigOption, SessionModeState } from "../../protocol/index.js";
import { ExitCode } from "./exit-codes.js";
import { runTerminalAuth } from "./terminal-auth.js";

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
  let authenticated = false;
  if (input.auth !== undefined) {
    await authenticate(input, chooseAuthMethod({ methods: input.init.authMethods, requested: input.auth, clientCapabilities: input.clientCapabilities, interactive: input.interactive }));
    authenticated = true;
  }
  try {
    return await openSession(input);
  } catch (error) {
    if (!isAuthRequired(error)) throw error;
    const detail = (error as Error).message;
    if (authenticated) throw new ExecFailure(ExitCode.auth, `the agent still requires authentication after "${input.auth}" (${detail})`);
    const choice = chooseAuthMethod({ methods: input.init.authMethods, clientCapabilities: input.clientCapabilities, interactive: input.interactive });
    input.note(`acp exec: the agent requires authentication (${detail})`);
    await authenticate(input, choice);
    try {
      return await openSession(input);
    } catch (retryError) {
      if (isAuthRequired(retryError)) throw new ExecFailure(ExitCode.auth, `the agent still requires authentication after "${methodId(choice)}": ${(retryError as Error).message}`);
      throw retryError;
    }
  }
}

function methodId(choice: AuthChoice): string {
  return choice.kind === "impossible" ? "" : choice.method.id;
}

async function authenticate(input: SetupInput, choice: AuthChoice): Promise<void> {
  if (choice.kind === "impossible") throw new ExecFailure(ExitCode.auth, choice.message);
  if (choice.kind === "agent") {
    input.note(`acp exec: authenticating with "${choice.method.id}" (${choice.method.name})`);
    try {
      await input.connection.authenticate({ methodId: choice.method.id });
    } catch (error) {
      throw new ExecFailure(ExitCode.auth, `authentication with "${choice.method.id}" failed: ${(error as Error).message}`);
    }
    return;
  }
  input.note(`acp exec: running the agent's terminal login "${choice.method.id}" (${choice.method.name})`);
  let status: { code: number | null; signal: NodeJS.Signals | null };
  try {
    status = await runTerminalAuth(input.agentArgv, choice.method, input.cwd);
  } catch (error) {
    throw new ExecFailure(ExitCode.auth, `could not run the terminal login "${choice.method.id}": ${(error as Error).message}`);
  }
  if (status.code !== 0) {
    const how = status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
    throw new ExecFailure(ExitCode.auth, `the terminal login "${choice.method.id}" ${how}`);
  }
}

async function openSession(input: SetupInput): Promise<SetupResult> {
  const { connection, cwd, mcpServers } = input;
  let sessionId = input.session;
  if (input.resume) sessionId = await latestSession(input);
  if (sessionId === undefined) {
    const response = await connection.newSession({ cwd, mcpServers });
    return { sessionId: response.sessionId, how: "new", modes: response.modes, configOptions: response.configOptions };
  }
  if (connection.peerSupports("session/resume")) {
    const response = await connection.resumeSession({ sessionId, cwd, mcpServers });
    return { sessionId, how: "resume", modes: response.modes, configOptions: response.configOptions };
  }
  if (connection.peerSupports("session/load")) {
    const response = await connection.loadSession({ sessionId, cwd, mcpServers });
    return { sessionId, how: "load", modes: response.modes, configOptions: response.configOptions };
  }
  throw new ExecFailure(ExitCode.startup, "the agent cannot continue a session (it advertises neither session/resume nor session/load); drop --session/--resume");
}

async function latestSession(input: SetupInput): Promise<string> {
  if (!input.connection.peerSupports("session/list")) {
    throw new ExecFailure(ExitCode.startup, "--resume needs an agent that lists its sessions (session/list); give --session ID instead");
  }
  const { sessions } = await input.connection.listSessions({ cwd: input.cwd });
  if (sessions.length === 0) throw new ExecFailure(ExitCode.startup, `the agent has no earlier session for ${input.cwd}; run without --resume to start one`);
  const time = (updatedAt: string | null | undefined) => (updatedAt ? Date.parse(updatedAt) || 0 : 0);
  const latest = sessions.reduce((best, session) => (time(session.updatedAt) > time(best.updatedAt) ? session : best));
  return latest.sessionId;
}

/** Text telling what the agent's methods are (for --logout and auth errors). */
export function authMethodsText(methods: readonly AuthMethod[] | null | undefined): string {
  return describeAuthMethods(methods ?? []);
}
