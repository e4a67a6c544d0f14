/**
 * Choosing an authentication method. Pure: no I/O. The caller runs the choice: `authenticate({ methodId })` for an
 * `agent` method, the agent's own command with the method's `args` and `env` in the user's terminal for a
 * `terminal` one (never `authenticate`: the spec forbids passing a terminal method to it).
 *
 * See protocol docs: [Initialization](https://agentclientprotocol.com/protocol/initialization#authentication)
 */
import type { AuthMethod, AuthMethodAgent, AuthMethodTerminal, ClientCapabilities } from "../protocol/index.js";
import { RequestError } from "../jsonrpc/request-error.js";

/** JSON-RPC error code an agent answers when it needs `authenticate` first. */
export const AUTH_REQUIRED_CODE = -32000;

/** What to do about authentication. */
export type AuthChoice =
  /**
   * `authenticate({ methodId })`. `unknownType` is set when the method's `type` is one this version does not know
   * (e.g. `env_var`, which codex-acp 0.16 advertises): it is only chosen when the user named it, and is sent as an
   * `agent` method, the only kind a client can run without knowing more; tell the user so.
   */
  | { readonly kind: "agent"; readonly method: AuthMethodAgent; readonly unknownType?: string }
  | { readonly kind: "terminal"; readonly method: AuthMethodTerminal }
  /** No method can be used; `message` says what the agent needs and what to do. */
  | { readonly kind: "impossible"; readonly message: string };

/**
 * The kind of a method: `type` absent (older agents) or `agent` means `agent`; `terminal`; a type this version does
 * not know (newer, or retired like `env_var`) is `unknown`.
 */
export function authMethodKind(method: AuthMethod | { id: string; type?: string }): "agent" | "terminal" | "unknown" {
  const type = (method as { type?: unknown }).type;
  return type === undefined || type === null || type === "agent"
    ? "agent"
    : type === "terminal"
      ? "terminal"
      : "unknown";
}

/** Whether `error` is the agent's "authentication required" answer (-32000). */
export function isAuthRequired(error: unknown): boolean {
  return error instanceof RequestError
    ? error.code === AUTH_REQUIRED_CODE
    : (error as { code?: unknown } | null)?.code === AUTH_REQUIRED_CODE;
}

/** The `type` a method advertises, as text (`agent` when absent). */
export function authMethodType(method: AuthMethod | { id: string; type?: unknown }): string {
  const type = (method as { type?: unknown }).type;
  return type === undefined || type === null ? "agent" : typeof type === "string" ? type : JSON.stringify(type);
}

/** One line per method: `id (kind): name — description`; a type this version does not know is named as such. */
export function describeAuthMethods(methods: readonly AuthMethod[]): string {
  if (methods.length === 0) return "(the agent lists no authentication methods)";
  const kindText = (method: AuthMethod) => {
    const kind = authMethodKind(method);
    return kind === "unknown"
      ? `type ${authMethodType(method)}, unknown to this client: usable only when named with --auth`
      : kind;
  };
  return methods
    .map(
      (method) =>
        `  ${method.id} (${kindText(method)}): ${method.name}${method.description ? ` — ${method.description}` : ""}`,
    )
    .join("\n");
}

/** Inputs of `chooseAuthMethod`. */
export interface AuthChoiceInput {
  /** The `authMethods` of the agent's `initialize` response. */
  methods: readonly AuthMethod[] | null | undefined;
  /** The method the user asked for (`--auth ID`), if any. */
  requested?: string;
  /** What the client advertised in `initialize` (`auth.terminal` allows terminal methods). */
  clientCapabilities?: ClientCapabilities;
  /** Whether the user can interact with a terminal method (a TTY). Default true. */
  interactive?: boolean;
}

/**
 * Picks the method to use:
 * - with `requested`: that method, if the agent lists it and the client can run it; else `impossible`, listing
 *   the methods. A method of a type this version does not know is the user's explicit choice: it is sent as an
 *   `agent` method (`authenticate`), marked with `unknownType`;
 * - without: the only usable method when there is exactly one (agent methods first: a single agent method wins
 *   over terminal ones, which need the user); else `impossible`, saying which to pick with `--auth`.
 * Terminal methods are usable only when the client advertised `auth.terminal` and `interactive` is not false.
 */
export function chooseAuthMethod(input: AuthChoiceInput): AuthChoice {
  const methods = input.methods ?? [];
  const terminalOk = input.clientCapabilities?.auth?.terminal === true && input.interactive !== false;
  const usable = (method: AuthMethod) => {
    const kind = authMethodKind(method);
    return kind === "agent" || (kind === "terminal" && terminalOk);
  };
  const listing = `The agent offers:\n${describeAuthMethods(methods)}`;
  if (input.requested !== undefined) {
    const method = methods.find((candidate) => candidate.id === input.requested);
    if (method === undefined)
      return { kind: "impossible", message: `the agent has no authentication method "${input.requested}". ${listing}` };
    const kind = authMethodKind(method);
    if (kind === "unknown")
      return { kind: "agent", method: method as AuthMethodAgent, unknownType: authMethodType(method) };
    if (kind === "terminal" && !terminalOk) {
      return {
        kind: "impossible",
        message:
          `authentication method "${method.id}" runs in a terminal; run this command in an interactive terminal ` +
          `to use it.`,
      };
    }
    return kind === "terminal"
      ? { kind, method: method as AuthMethodTerminal }
      : { kind, method: method as AuthMethodAgent };
  }
  if (methods.length === 0)
    return {
      kind: "impossible",
      message:
        "the agent requires authentication but lists no authentication method; authenticate with the agent's " +
        "own tools first.",
    };
  const agentMethods = methods.filter((method) => authMethodKind(method) === "agent");
  if (agentMethods.length === 1) return { kind: "agent", method: agentMethods[0] as AuthMethodAgent };
  const candidates = methods.filter(usable);
  if (candidates.length === 1) {
    const method = candidates[0]!;
    return authMethodKind(method) === "terminal"
      ? { kind: "terminal", method: method as AuthMethodTerminal }
      : { kind: "agent", method: method as AuthMethodAgent };
  }
  if (candidates.length === 0) {
    return {
      kind: "impossible",
      message:
        `the agent requires authentication, and none of its methods can run here (terminal methods need an ` +
        `interactive terminal). ${listing}`,
    };
  }
  return {
    kind: "impossible",
    message: `the agent requires authentication; choose a method with --auth ID. ${listing}`,
  };
}
