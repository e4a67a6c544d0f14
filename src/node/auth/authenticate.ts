/**
 * Running authentication for a client in a terminal (`acp exec`, `acp chat`): picks a method with the client library's
 * `chooseAuthMethod`, then runs it — `authenticate` for an agent method, the agent's own command in the user's
 * terminal for a terminal method — and, when opening a session answers `auth_required` (-32000), authenticates
 * and retries once.
 *
 * See protocol docs: [Initialization](https://agentclientprotocol.com/protocol/initialization#authentication)
 */
import { chooseAuthMethod, isAuthRequired, type AuthChoice } from "../../client/auth.js";
import type { AuthMethod, ClientCapabilities } from "../../protocol/index.js";
import { runTerminalAuth } from "./terminal-auth.js";

/** Authentication failed or cannot be done; the message says what the agent needs. */
export class AuthFailure extends Error {
  override readonly name = "AuthFailure";
}

/** What authenticating needs. */
export interface AuthContext {
  connection: { authenticate(params: { methodId: string }): Promise<unknown> };
  /** The `authMethods` of the agent's `initialize` response. */
  methods: readonly AuthMethod[] | null | undefined;
  /** What the client advertised (`auth.terminal` allows terminal methods). */
  clientCapabilities: ClientCapabilities;
  /** Whether a terminal method can take over the user's terminal now. */
  interactive: boolean;
  /** The agent's command (a terminal method runs it with the method's args and env). */
  agentArgv: readonly string[];
  cwd: string;
  /** Progress lines for the user. */
  note(text: string): void;
  /** Runs a terminal login (default: `runTerminalAuth`; injectable for tests). */
  runTerminal?: typeof runTerminalAuth;
}

/**
 * Authenticates with `requested`, or the method `chooseAuthMethod` picks; resolves with its id. Throws `AuthFailure`.
 */
export async function authenticateWith(context: AuthContext, requested?: string): Promise<string> {
  const choice = chooseAuthMethod({
    methods: context.methods,
    clientCapabilities: context.clientCapabilities,
    interactive: context.interactive,
    ...(requested !== undefined ? { requested } : {}),
  });
  await runChoice(context, choice);
  return (choice as Exclude<AuthChoice, { kind: "impossible" }>).method.id;
}

/**
 * Runs `open` (a `session/new`, `load` or `resume`); when it answers `auth_required`, authenticates (the method
 * `chooseAuthMethod` picks) and runs it once more. With `authenticatedWith` (a method already used, e.g. `--auth`)
 * a second `auth_required` is an `AuthFailure` at once.
 */
export async function withAuthentication<T>(
  context: AuthContext,
  open: () => Promise<T>,
  authenticatedWith?: string,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (!isAuthRequired(error)) throw error;
    const detail = (error as Error).message;
    if (authenticatedWith !== undefined)
      throw new AuthFailure(`the agent still requires authentication after "${authenticatedWith}" (${detail})`);
    context.note(`the agent requires authentication (${detail})`);
    const methodId = await authenticateWith(context);
    try {
      return await open();
    } catch (retryError) {
      if (isAuthRequired(retryError))
        throw new AuthFailure(
          `the agent still requires authentication after "${methodId}": ${(retryError as Error).message}`,
        );
      throw retryError;
    }
  }
}

async function runChoice(context: AuthContext, choice: AuthChoice): Promise<void> {
  if (choice.kind === "impossible") throw new AuthFailure(choice.message);
  if (choice.kind === "agent") {
    if (choice.unknownType !== undefined) {
      context.note(
        `authentication method "${choice.method.id}" has type "${choice.unknownType}", which this client does ` +
          `not know; sending it as authenticate, as asked (the agent decides whether that works)`,
      );
    }
    context.note(`authenticating with "${choice.method.id}" (${choice.method.name})`);
    try {
      await context.connection.authenticate({ methodId: choice.method.id });
    } catch (error) {
      throw new AuthFailure(`authentication with "${choice.method.id}" failed: ${(error as Error).message}`);
    }
    return;
  }
  context.note(`running the agent's terminal login "${choice.method.id}" (${choice.method.name})`);
  let status: { code: number | null; signal: NodeJS.Signals | null };
  try {
    status = await (context.runTerminal ?? runTerminalAuth)(context.agentArgv, choice.method, context.cwd);
  } catch (error) {
    throw new AuthFailure(`could not run the terminal login "${choice.method.id}": ${(error as Error).message}`);
  }
  if (status.code !== 0) {
    const how = status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
    throw new AuthFailure(`the terminal login "${choice.method.id}" ${how}`);
  }
}
