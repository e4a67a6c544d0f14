/**
 * The agent a server (or one request) uses, from the options that name it: one connector, or a factory called per
 * connection; and a URL's path, read safely.
 */
import type { AgentConnector, AgentFactory } from "../../acp/agent-connector.js";

export function resolveAgent(
  options: { agent?: AgentConnector; createAgent?: AgentFactory },
  required: boolean,
): AgentConnector | undefined {
  if ("createLegacyAgent" in options)
    throw new TypeError(
      "createLegacyAgent is not supported (it was removed in the official SDK too); use agent or createAgent.",
    );
  const { agent, createAgent } = options;
  if (agent !== undefined && createAgent !== undefined)
    throw new TypeError("Give either agent or createAgent, not both.");
  if (agent !== undefined) {
    if (typeof agent?.connect !== "function")
      throw new TypeError("agent must have a connect(stream) method (an agent() app, or a connector).");
    return agent;
  }
  if (createAgent !== undefined)
    return { connect: (stream, connectOptions) => createAgent().connect(stream, connectOptions ?? {}) };
  if (required)
    throw new TypeError(
      "AcpServer needs an agent: give options.agent (an agent() app or a connector) or options.createAgent.",
    );
  return undefined;
}

export function safePathname(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}
