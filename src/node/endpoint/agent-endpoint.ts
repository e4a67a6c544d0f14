/**
 * One way to reach an agent, local or remote: `openAgentEndpoint({ argv })` launches a stdio agent (see
 * `launchAgent`), `openAgentEndpoint({ url })` connects to a remote one over WebSocket or Streamable HTTP (see
 * `connectRemote`). Either way the caller gets a `Stream` for its connection and a `stop()`, so programs (`acp
 * exec`, `acp chat`) treat both alike: files, terminals and permissions are served by the client in both cases.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { LINK, type Stream } from "../../jsonrpc/link.js";
import type { ReconnectOptions } from "../../client/reconnect/index.js";
import type { RemoteProfile } from "../../remote/client/open-remote.js";
import { launchAgent } from "../process/agent-launcher.js";
import { connectRemote } from "./connect-remote.js";

/** Where the agent is: a command line to launch, or a URL to connect to. */
export type AgentSpec =
  | { argv: readonly string[] }
  | {
      url: string;
      token?: string;
      headers?: Record<string, string>;
      profile?: RemoteProfile;
      reconnect?: boolean | ReconnectOptions;
      /**
       * Over WebSocket, a ping every this many ms; a server that answers neither it nor anything else before the next
       * one fails the connection (a server stopped or cut off without a FIN). Off by default.
       */
      pingIntervalMs?: number;
    };

/** A reachable agent. */
export interface AgentEndpoint {
  /** The agent's messages, for `new ClientSideConnection(toClient, stream)`. */
  readonly stream: Stream;
  /** Whether the agent is remote (a URL). */
  readonly remote: boolean;
  /** The command line of a local agent (empty for a remote one: it cannot be relaunched for terminal auth). */
  readonly argv: readonly string[];
  /** The command line or the URL, for messages. */
  readonly label: string;
  /** Deadline of `initializeWithDeadline`. */
  readonly startupTimeoutMs: number;
  /** What a local agent printed on stderr lately (nothing for a remote one). */
  stderrTail(): string[];
  /** Stops a local agent (no orphans), or closes the remote connection (DELETE / close frame). Idempotent. */
  stop(): Promise<void>;
}

/** Options of `openAgentEndpoint`. */
export interface AgentEndpointOptions {
  /** Working directory of a local agent. */
  cwd?: string;
  /** Deadline of `initialize` (and of the WebSocket upgrade). Default 30000. */
  startupTimeoutMs?: number;
  /** Each stderr line of a local agent. */
  onStderrLine?: (line: string) => void;
}

/** True for the URLs `openAgentEndpoint` connects to: `http(s)://` and `ws(s)://`. */
export function isAgentUrl(text: string | undefined): boolean {
  return text !== undefined && /^(https?|wss?):\/\/\S+$/i.test(text.trim());
}

/** Launches or connects to the agent; rejects when it cannot be started or reached (with a message that says why). */
export async function openAgentEndpoint(spec: AgentSpec, options: AgentEndpointOptions = {}): Promise<AgentEndpoint> {
  const startupTimeoutMs = options.startupTimeoutMs ?? 30_000;
  if ("argv" in spec) {
    const launched = await launchAgent({
      argv: spec.argv,
      cwd: options.cwd,
      startupTimeoutMs,
      onStderrLine: options.onStderrLine,
    });
    return {
      stream: launched.stream,
      remote: false,
      argv: launched.argv,
      label: launched.argv.join(" "),
      startupTimeoutMs,
      stderrTail: () => launched.stderrTail(),
      stop: async () => void (await launched.stop()),
    };
  }
  const stream = await connectRemote(spec.url, {
    ...(spec.token === undefined ? {} : { token: spec.token }),
    ...(spec.headers === undefined ? {} : { headers: spec.headers }),
    ...(spec.profile === undefined ? {} : { profile: spec.profile }),
    ...(spec.reconnect === undefined ? {} : { reconnect: spec.reconnect }),
    ...(spec.pingIntervalMs === undefined ? {} : { pingIntervalMs: spec.pingIntervalMs }),
    openTimeoutMs: startupTimeoutMs,
  });
  let stopping: Promise<void> | undefined;
  return {
    stream,
    remote: true,
    argv: [],
    label: stream.url,
    startupTimeoutMs,
    stderrTail: () => [],
    stop: () => (stopping ??= stream[LINK]!.close().catch(() => {})),
  };
}
