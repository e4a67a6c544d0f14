/**
 * A typed program on the 2.x app API, written for `@agentclientprotocol/sdk` 2.4.0: handlers declared on their own
 * with the official handler, context and connection types, then registered; a client that runs a session through
 * `connectWith`, `buildSession` and `ActiveSession`. `typed-programs.test.ts` compiles it as it is and with the
 * import changed to `acpkit`; both must type-check. Nothing runs at import (only functions are defined).
 */
import * as acp from "@agentclientprotocol/sdk";

type PromptHandler = acp.AgentRequestHandlersByMethod["session/prompt"];

async function showFile(client: acp.AgentContext, sessionId: string, cwd: string): Promise<string> {
  const file: acp.ReadTextFileResponse = await client.request(acp.methods.client.fs.readTextFile, {
    sessionId,
    path: `${cwd}/README.md`,
    limit: 10,
  });
  const terminal = await client.createTerminal({ sessionId, command: "ls", args: ["-l"], cwd });
  const exit = await terminal.waitForExit();
  const output = await terminal.currentOutput();
  await terminal.release();
  return `${file.content}\n${output.output} (${exit.exitCode ?? "signal"})`;
}

const prompt: PromptHandler = async ({ params, client, signal, requestId }) => {
  const update: acp.SessionNotification = {
    sessionId: params.sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `turn ${String(requestId)}` } },
  };
  await client.notify(acp.methods.client.session.update, update);
  const permission: acp.RequestPermissionResponse = await client.request(
    acp.methods.client.session.requestPermission,
    {
      sessionId: params.sessionId,
      toolCall: { toolCallId: "t1", title: "Read the README", kind: "read", status: "pending" },
      options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
    },
    { cancellationSignal: signal },
  );
  if (permission.outcome.outcome === "cancelled" || signal.aborted) return { stopReason: "cancelled" };
  await showFile(client, params.sessionId, "/work");
  return { stopReason: "end_turn" };
};

const cancel: acp.AgentNotificationHandlersByMethod["session/cancel"] = ({ params }) => {
  void params.sessionId;
};

export function serveAgent(stream: acp.Stream): acp.AgentConnection {
  const app: acp.AgentApp = acp
    .agent({ name: "typed-agent" })
    .onConnect((connection: acp.AgentConnection) => {
      void connection.closed.then(() => undefined);
    })
    .onRequest(acp.methods.agent.initialize, ({ params }): acp.InitializeResponse => ({
      protocolVersion: params.protocolVersion,
      agentCapabilities: { loadSession: false },
    }))
    .onRequest(acp.methods.agent.session.new, (): acp.NewSessionResponse => ({ sessionId: "s1" }))
    .onRequest(acp.methods.agent.session.prompt, prompt)
    .onNotification(acp.methods.agent.session.cancel, cancel)
    .onRequest(
      "_typed/echo",
      (raw: unknown) => raw as { text: string },
      ({ params }) => ({ echoed: params.text }),
    );
  return app.connect(stream);
}

export async function runClient(stream: acp.Stream): Promise<acp.PromptResponse> {
  const onPermission: acp.ClientRequestHandler<acp.RequestPermissionRequest, acp.RequestPermissionResponse> = ({
    params,
  }) => ({
    outcome: { outcome: "selected", optionId: params.options[0]!.optionId },
  });
  const seen: acp.SessionUpdate[] = [];
  const app: acp.ClientApp = acp
    .client({ name: "typed-client" })
    .onRequest(acp.methods.client.session.requestPermission, onPermission)
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: `contents of ${params.path}` }))
    .onNotification(
      acp.methods.client.session.update,
      (context: acp.ClientNotificationContext<acp.SessionNotification>) => {
        seen.push(context.params.update);
      },
    );
  return app.connectWith(stream, async (agent: acp.ClientContext) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true } },
    });
    if (init.protocolVersion !== acp.PROTOCOL_VERSION) throw new acp.RequestError(-32600, "protocol version");
    const echoed = await agent.request<{ echoed: string }>("_typed/echo", { text: "hi" });
    void echoed.echoed;
    const builder: acp.SessionBuilder = agent.buildSession("/work").withAdditionalDirectories(["/tmp"]);
    return builder.withSession(async (session: acp.ActiveSession) => {
      void session.prompt("Hello");
      for (;;) {
        const message: acp.ActiveSessionMessage = await session.nextUpdate();
        if (message.kind === "stop") return message.response;
        seen.push(message.update);
      }
    });
  });
}

export function connectInMemory(): Promise<string> {
  const agentApp = acp
    .agent()
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION }));
  return acp
    .client()
    .connectWith(agentApp, async (agent) =>
      String((await agent.request(acp.methods.agent.initialize, { protocolVersion: 1 })).protocolVersion),
    );
}

export function closeOnError(connection: acp.ClientConnection): Promise<void> {
  connection.signal.addEventListener("abort", () => undefined);
  connection.close(new Error("done"));
  return connection.closed;
}
