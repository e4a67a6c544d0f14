/**
 * Test harness: a `toolkitAgent` on an in-memory pair with a 1.x `ClientSideConnection` that records every
 * `session/update` and the order of events. For tests only (not shipped).
 */
import { AgentSideConnection } from "../../agent-side-connection.js";
import { ClientSideConnection } from "../../../client/client-side-connection.js";
import type { Client } from "../../../acp/client-handler.js";
import type { ClientCapabilities, SessionNotification } from "../../../protocol/index.js";
import { silentLogger } from "../../../jsonrpc/logger.js";
import { createMemoryPair, type MemoryPairOptions } from "../../../transports/memory.js";

/** Tests here make handlers fail on purpose: what the connections would log is not the point. */
const quiet = { logger: silentLogger };
import { toolkitAgent, type ToolkitAgent, type ToolkitAgentOptions } from "../toolkit-agent.js";

export interface Harness<S> {
  client: ClientSideConnection;
  agent: ToolkitAgent<S>;
  connection: AgentSideConnection;
  updates: SessionNotification[];
  /** "update:<kind>" and whatever the test pushes, in arrival order. */
  events: string[];
}

/** Connects and initializes with `clientCapabilities` (over a memory pair made with `pairOptions`). */
export async function connectToolkit<S>(
  options: ToolkitAgentOptions<S>,
  clientCapabilities: ClientCapabilities = {},
  clientOverrides: Partial<Client> = {},
  pairOptions: MemoryPairOptions = {},
): Promise<Harness<S>> {
  const [agentEnd, clientEnd] = createMemoryPair(pairOptions);
  let agent!: ToolkitAgent<S>;
  const connection = new AgentSideConnection((conn) => (agent = toolkitAgent<S>(conn, options)), agentEnd, quiet);
  const updates: SessionNotification[] = [];
  const events: string[] = [];
  const client = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => {
        updates.push(params);
        events.push(`update:${params.update.sessionUpdate}`);
      },
      requestPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
      ...clientOverrides,
    }),
    clientEnd,
    quiet,
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities });
  return { client, agent, connection, updates, events };
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling every ms), or fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 2000, what = "a condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(1);
  }
}
