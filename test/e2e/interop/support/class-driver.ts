/** The test client on the 1.x class API (`ClientSideConnection` implementing the `Client` interface). */
import type * as acp from "sdk-1.9";
import type { ClientHost } from "./client-host.js";
import { CLIENT_CAPABILITIES, CLIENT_INFO, type Driver, type DriverOptions } from "./driver.js";
import { loadClasses, tapOf, type Impl, type TapEvent } from "./impl.js";
import type { SpawnedAgent } from "./spawn.js";

/** acpkit's ClientSideConnection takes connection options (a logger, ...) as an optional third argument. */
type WithOptions = new (
  toClient: (agent: acp.Agent) => acp.Client,
  stream: acp.Stream,
  options?: { logger?: DriverOptions["logger"] },
) => acp.ClientSideConnection;

export async function classDriver(
  impl: Impl,
  agent: SpawnedAgent,
  host: ClientHost,
  options: DriverOptions = {},
): Promise<Driver> {
  const sdk = await loadClasses(impl);
  const client: acp.Client = {
    requestPermission: (params) => host.requestPermission(params),
    sessionUpdate: (params) => host.sessionUpdate(params),
    readTextFile: (params) => host.readTextFile(params),
    writeTextFile: (params) => host.writeTextFile(params),
    createTerminal: (params) => host.terminals.create(params),
    terminalOutput: (params) => host.terminals.output(params),
    waitForTerminalExit: (params) => host.terminals.waitForExit(params),
    killTerminal: (params) => host.terminals.kill(params),
    releaseTerminal: (params) => host.terminals.release(params),
    extMethod: async (method, params) => {
      try {
        return host.extMethod(method, params);
      } catch {
        throw sdk.RequestError.methodNotFound(method);
      }
    },
    extNotification: (method, params) => host.extNotification(method, params),
  };
  const stream = sdk.ndJsonStream(
    agent.output,
    agent.input,
    options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : undefined,
  );
  const connection =
    impl === "acpkit" && options.logger
      ? new (sdk.ClientSideConnection as unknown as WithOptions)(() => client, stream, { logger: options.logger })
      : new sdk.ClientSideConnection(() => client, stream);
  const tap = impl === "acpkit" ? tapOf(connection) : undefined;
  const tapped: TapEvent[] | undefined = tap ? [] : undefined;
  if (tap) tap((event) => tapped!.push(event));
  const closable = connection as unknown as { close?: (reason?: unknown) => void };

  return {
    impl,
    host,
    tapped,
    initialize: () =>
      connection.initialize({
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: CLIENT_INFO,
      }),
    newSession: async (cwd) => (await connection.newSession({ cwd, mcpServers: [] })).sessionId,
    loadSession: (sessionId, cwd) => connection.loadSession({ sessionId, cwd, mcpServers: [] }),
    prompt: (sessionId, text, signal) => {
      const params: acp.PromptRequest = { sessionId, prompt: [{ type: "text", text }] };
      if (signal) return connection.request("session/prompt", params, { cancellationSignal: signal });
      return connection.prompt(params);
    },
    cancel: (sessionId) => connection.cancel({ sessionId }),
    extMethod: (method, params) => connection.extMethod(method, params),
    extNotification: (method, params) => connection.extNotification(method, params),
    close: typeof closable.close === "function" ? () => closable.close!() : undefined,
    closed: connection.closed,
  };
}
