/**
 * A test client on the 2.x app API (the official SDK 2.4.0, or acpkit loaded in its place) over a remote stream, doing
 * for the agent what a real client does (files, terminals, permissions) through the interop tests' `ClientHost`.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type * as v1 from "sdk-1.9";
import { ClientHost } from "../../interop/support/client-host.js";
import { CLIENT_CAPABILITIES, CLIENT_INFO } from "../../interop/support/driver.js";
import { loadApp, type Impl } from "../../interop/support/impl.js";
import type { MessageStream } from "./client-transports.js";

export interface RemoteClient {
  readonly host: ClientHost;
  initialize(): Promise<acp.InitializeResponse>;
  newSession(cwd: string): Promise<string>;
  loadSession(sessionId: string, cwd: string): Promise<unknown>;
  prompt(sessionId: string, text: string): Promise<{ stopReason: string }>;
  cancel(sessionId: string): Promise<void>;
  close(): void;
  readonly closed: Promise<void>;
}

export async function remoteClient(
  stream: MessageStream,
  root: string,
  impl: Impl = "official",
): Promise<RemoteClient> {
  const sdk = await loadApp(impl);
  const { methods } = sdk;
  const host = new ClientHost(root);
  const app = sdk
    .client({ name: "remote-test-client" })
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
    .onRequest(methods.client.terminal.release, ({ params }) => host.terminals.release(params));
  const connection = app.connect(stream as acp.Stream);
  const ctx = connection.agent;
  return {
    host,
    initialize: () =>
      ctx.request(methods.agent.initialize, {
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: CLIENT_INFO,
      }),
    newSession: async (cwd) => (await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId,
    loadSession: (sessionId, cwd) => ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }),
    prompt: (sessionId, text) =>
      ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    cancel: (sessionId) => ctx.notify(methods.agent.session.cancel, { sessionId }),
    close: () => {
      connection.close();
      host.dispose();
    },
    closed: connection.closed,
  };
}
