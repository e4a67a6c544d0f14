/**
 * A typed program on the 1.x class API, written for `@agentclientprotocol/sdk` 1.9.0: an agent class implementing
 * `Agent`, a client class implementing `Client`, and the connections between them. `typed-programs.test.ts`
 * compiles it as it is and with the import changed to `acpkit`; both must type-check. Nothing runs at import.
 */
import * as acp from "sdk-1.9";

class TypedAgent implements acp.Agent {
  constructor(private readonly connection: acp.AgentSideConnection) {}

  async initialize(params: acp.InitializeRequest): Promise<acp.InitializeResponse> {
    return { protocolVersion: params.protocolVersion, agentCapabilities: { loadSession: true }, authMethods: [] };
  }

  async newSession(_params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    return { sessionId: "s1" };
  }

  async loadSession(_params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
    return {};
  }

  async authenticate(_params: acp.AuthenticateRequest): Promise<acp.AuthenticateResponse | void> {}

  async prompt(params: acp.PromptRequest): Promise<acp.PromptResponse> {
    await this.connection.sessionUpdate({
      sessionId: params.sessionId,
      update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } },
    });
    const answer = await this.connection.requestPermission({
      sessionId: params.sessionId,
      toolCall: { toolCallId: "t1", title: "Write", kind: "edit", status: "pending" },
      options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
    });
    if (answer.outcome.outcome === "selected") {
      await this.connection.writeTextFile({ sessionId: params.sessionId, path: "/work/out.txt", content: "done" });
    }
    const terminal: acp.TerminalHandle = await this.connection.createTerminal({
      sessionId: params.sessionId,
      command: "true",
    });
    await terminal.waitForExit();
    await terminal.release();
    return { stopReason: "end_turn" };
  }

  async cancel(_params: acp.CancelNotification): Promise<void> {}

  async extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return { method, params };
  }
}

class TypedClient implements acp.Client {
  readonly updates: acp.SessionNotification[] = [];

  async requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    return { outcome: { outcome: "selected", optionId: params.options[0]!.optionId } };
  }

  async sessionUpdate(params: acp.SessionNotification): Promise<void> {
    this.updates.push(params);
  }

  async writeTextFile(_params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    return {};
  }

  async readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    return { content: params.path };
  }
}

export function serve(stream: acp.Stream): acp.AgentSideConnection {
  return new acp.AgentSideConnection((connection) => new TypedAgent(connection), stream);
}

export async function drive(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
): Promise<acp.StopReason> {
  const client = new TypedClient();
  const connection: acp.ClientSideConnection = new acp.ClientSideConnection(
    () => client,
    acp.ndJsonStream(output, input),
  );
  const init = await connection.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  if (!init.agentCapabilities?.loadSession) throw new acp.RequestError(-32601, "no load");
  const { sessionId } = await connection.newSession({ cwd: "/work", mcpServers: [] });
  const { stopReason } = await connection.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
  await connection.cancel({ sessionId });
  connection.signal.addEventListener("abort", () => undefined);
  await connection.closed;
  return stopReason;
}
