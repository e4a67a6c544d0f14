/** The test client on the 2.x app API (`client().onRequest(...)`, `connect(stream)`, `ctx.request`, sessions). */
import type * as acp from "@agentclientprotocol/sdk";
import type * as v1 from "sdk-1.9";
import type { ClientHost } from "./client-host.js";
import { CLIENT_CAPABILITIES, CLIENT_INFO, type Driver, type DriverOptions } from "./driver.js";
import { loadApp, tapOf, type Impl, type TapEvent } from "./impl.js";
import type { SpawnedAgent } from "./spawn.js";

const record = (raw: unknown): Record<string, unknown> => (raw ?? {}) as Record<string, unknown>;

export async function appDriver(
  impl: Impl,
  agent: SpawnedAgent,
  host: ClientHost,
  options: DriverOptions = {},
): Promise<Driver> {
  const sdk = await loadApp(impl);
  const { methods } = sdk;
  const app = sdk
    .client({ name: "interop-test-client", ...(impl === "acpkit" && options.logger ? { logger: options.logger } : {}) })
    .onRequest(
      methods.client.session.requestPermission,
      async ({ params, signal }) =>
        (await host.requestPermission(params as v1.RequestPermissionRequest, signal)) as acp.RequestPermissionResponse,
    )
    .onNotification(methods.client.session.update, ({ params }) => host.sessionUpdate(params as v1.SessionNotification))
    .onRequest(methods.client.fs.readTextFile, ({ params }) => host.readTextFile(params))
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => host.writeTextFile(params))
    .onRequest(methods.client.terminal.create, ({ params }) =>
      host.terminals.create(params as v1.CreateTerminalRequest),
    )
    .onRequest(
      methods.client.terminal.output,
      ({ params }) => host.terminals.output(params) as acp.TerminalOutputResponse,
    )
    .onRequest(methods.client.terminal.waitForExit, ({ params }) => host.terminals.waitForExit(params))
    .onRequest(methods.client.terminal.kill, ({ params }) => host.terminals.kill(params))
    .onRequest(methods.client.terminal.release, ({ params }) => host.terminals.release(params))
    .onRequest("_acme/client_ping", record, ({ params }) => host.extMethod("_acme/client_ping", params))
    .onNotification("_acme/seen", record, ({ params }) => host.extNotification("_acme/seen", params))
    .onNotification("_acme/agent_note", record, ({ params }) => host.extNotification("_acme/agent_note", params));

  const connection = app.connect(
    sdk.ndJsonStream(
      agent.output,
      agent.input,
      options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : undefined,
    ),
  );
  const ctx = connection.agent;
  const tap = impl === "acpkit" ? (tapOf(connection) ?? tapOf(ctx)) : undefined;
  const tapped: TapEvent[] | undefined = tap ? [] : undefined;
  if (tap) tap((event) => tapped!.push(event));

  return {
    impl,
    host,
    tapped,
    initialize: () =>
      ctx.request(methods.agent.initialize, {
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: CLIENT_INFO,
      }),
    newSession: async (cwd) => (await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId,
    loadSession: (sessionId, cwd) => ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }),
    prompt: (sessionId, text, signal) =>
      ctx.request(
        methods.agent.session.prompt,
        { sessionId, prompt: [{ type: "text", text }] },
        signal ? { cancellationSignal: signal } : undefined,
      ),
    cancel: (sessionId) => ctx.notify(methods.agent.session.cancel, { sessionId }),
    extMethod: (method, params) => ctx.request<Record<string, unknown>>(method, params),
    extNotification: (method, params) => ctx.notify(method, params),
    close: () => connection.close(),
    closed: connection.closed,
    activeSessionTurn: async (cwd, text) => {
      const session = await ctx.buildSession(cwd).start();
      try {
        const done = session.prompt(text);
        const texts: string[] = [];
        for (;;) {
          const message = await session.nextUpdate();
          if (message.kind === "stop") {
            await done;
            return { sessionId: session.sessionId, texts, stopReason: message.stopReason };
          }
          const update = message.update;
          if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
            texts.push(update.content.text);
        }
      } finally {
        session.dispose();
      }
    },
  };
}
