/** Initialization: the handshake, version negotiation, and authentication with a method the agent never offered. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { describeError } from "../agent-process.js";
import type { AgentScenario } from "../scenario.js";

/** Capabilities an agent advertises, as a short list. */
function advertised(init: Record<string, unknown>): string {
  const caps = (init.agentCapabilities ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  if (caps.loadSession) out.push("load");
  const session = (caps.sessionCapabilities ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(session)) if (value != null && value !== false) out.push(key);
  const prompt = (caps.promptCapabilities ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(prompt)) if (value === true) out.push(key);
  const auth = Array.isArray(init.authMethods) ? init.authMethods.length : 0;
  if (auth > 0) out.push(`${auth} auth method${auth === 1 ? "" : "s"}`);
  return out.length === 0 ? "no optional capabilities" : out.join(", ");
}

export const initializeScenario: AgentScenario = {
  id: "initialize",
  title: "initialize: protocol version 1 answered with version 1, capabilities, startup time",
  spec: `${SPEC}/initialization`,
  async run(ctx) {
    const agent = await ctx.start({ login: false });
    const init = agent.init!;
    ctx.measure("startupMs", agent.startupMs!);
    if (init.protocolVersion !== 1)
      throw new CheckFailed(
        `the client asked for protocol version 1 and the agent answered ` +
          `${JSON.stringify(init.protocolVersion)}. If the agent supports the requested version it MUST answer ` +
          `with the same version (every ACP agent supports version 1).`,
      );
    if (init.agentInfo === undefined)
      ctx.warn("the agent sent no agentInfo; agents SHOULD give their name and version in the initialize response");
    const info = init.agentInfo as { name?: string; version?: string } | undefined;
    return `${info?.name ?? "agent"} ${info?.version ?? ""}`.trim() + `: ${advertised(init)}`;
  },
};

export const versionScenario: AgentScenario = {
  id: "initialize.version",
  title: "initialize: a protocol version from the future is answered with the latest one the agent supports",
  spec: `${SPEC}/initialization#version-negotiation`,
  async run(ctx) {
    const agent = await ctx.launch();
    const answer = await agent.call(
      "initialize",
      { protocolVersion: 999, clientCapabilities: {}, clientInfo: { name: "acp-check", version: ctx.target.version } },
      ctx.target.startupTimeoutMs,
    );
    if (answer.error !== undefined)
      throw new CheckFailed(
        `the agent answered initialize with protocolVersion 999 with an error ` +
          `(${describeError(answer.error)}). It MUST answer with the latest protocol version it supports; the ` +
          `client then decides whether to go on.`,
      );
    const version = (answer.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version !== "number" || version >= 999)
      throw new CheckFailed(
        `asked for protocol version 999 (which does not exist), the agent answered ` +
          `${JSON.stringify(version)}. An agent that does not support the requested version MUST answer with ` +
          `the latest version it supports.`,
      );
    return `answered protocol version ${version}`;
  },
};

export const authScenario: AgentScenario = {
  id: "auth.unknown-method",
  title: "authenticate: a method the agent did not offer is refused with an error",
  spec: `${SPEC}/initialization#authentication-capabilities`,
  skip: (init) =>
    Array.isArray(init.authMethods) && init.authMethods.length > 0 ? undefined : "the agent offers no authMethods",
  async run(ctx) {
    const agent = await ctx.start({ login: false });
    const answer = await agent.call(
      "authenticate",
      { methodId: "acp-check-no-such-method" },
      ctx.target.startupTimeoutMs,
    );
    if (answer.error === undefined)
      throw new CheckFailed(
        'the agent accepted authenticate with methodId "acp-check-no-such-method", which is not one of the ' +
          "authMethods it advertised. It MUST refuse a method it does not offer with an error.",
      );
    return `refused: ${describeError(answer.error)}`;
  },
};

/** The ids of the agent's `authMethods`. */
export function authMethodIds(init: Record<string, unknown>): string[] {
  return (Array.isArray(init.authMethods) ? init.authMethods : [])
    .map((m: { id?: unknown }) => m?.id)
    .filter((id): id is string => typeof id === "string");
}

export const authenticateScenario: AgentScenario = {
  id: "auth.authenticate",
  title: "authenticate with an offered method (--auth): answered, and session/new is then accepted",
  spec: `${SPEC}/authentication`,
  skip: (init) => (authMethodIds(init).length > 0 ? undefined : "the agent offers no authMethods"),
  async run(ctx) {
    const method = ctx.target.auth;
    const agent = await ctx.start({ login: false });
    if (method === undefined)
      throw new NotExercised(
        `the agent offers ${authMethodIds(agent.init!)
          .map((id) => JSON.stringify(id))
          .join(
            ", ",
          )}; log in with --auth METHOD (and give the credentials it needs with --env NAME=VALUE) to exercise authenticate and what needs a session`,
      );
    await agent.authenticate(method);
    const sessionId = await agent.newSession(ctx.workdir);
    return `logged in with "${method}"; session/new then accepted (${sessionId})`;
  },
};
