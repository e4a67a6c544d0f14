/**
 * The page's ACP client, in a Web Worker: the library's `ClientSideConnection` (unstable flavour) over the library's
 * browser WebSocket transport to the inspector's `/acp` endpoint. Every JSON-RPC message of a driven lane is
 * received, parsed, validated and routed here, off the page's main thread, so a 200,000-chunk turn does not compete
 * with painting and keys. What the agent asks of the client goes to the page (`ask`): permission requests and forms
 * to the person, files and terminals to the inspector's host; the page's answers come back as they were.
 */
import { PROTOCOL_VERSION, RequestError } from "@acpkit/sdk";
import { createWebSocketStream } from "@acpkit/sdk/remote";
import { ClientSideConnection, type Client } from "@acpkit/sdk/unstable";
import { toWireError, type FromWorker, type ToWorker } from "../model/worker-protocol.js";

const scope = globalThis as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};
const waiting = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
let nextAsk = 1;
let connection: ClientSideConnection | undefined;

function ask(kind: "permission" | "elicitation" | "host", method: string, params: unknown): Promise<any> {
  const id = nextAsk++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    scope.postMessage({ type: "ask", id, kind, method, params });
  });
}

function open(host: string, token: string, key: string, version: string): void {
  const stream = createWebSocketStream(`ws://${host}/acp?client=${key}`, { token });
  const host_ = (method: string) => (params: unknown) => ask("host", method, params);
  const client = {
    sessionUpdate: async () => {},
    requestPermission: (params) => ask("permission", "session/request_permission", params),
    createElicitation: (params) => ask("elicitation", "elicitation/create", params),
    readTextFile: host_("fs/read_text_file"),
    writeTextFile: host_("fs/write_text_file"),
    createTerminal: host_("terminal/create"),
    terminalOutput: host_("terminal/output"),
    waitForTerminalExit: host_("terminal/wait_for_exit"),
    killTerminal: host_("terminal/kill"),
    releaseTerminal: host_("terminal/release"),
  } as Client;
  connection = new ClientSideConnection(() => client, stream);
  connection
    .initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        elicitation: { form: {} },
      } as never,
      clientInfo: { name: "acp inspect", title: "acpkit inspector", version },
    })
    .then(
      () => scope.postMessage({ type: "initialized" }),
      (error: unknown) => scope.postMessage({ type: "initialized", error: toWireError(error) }),
    );
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "open") return open(message.host, message.token, message.key, message.version);
  if (message.type === "answer") {
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (!pending) return;
    if (message.error) pending.reject(new RequestError(message.error.code, message.error.message, message.error.data));
    else pending.resolve(message.result);
    return;
  }
  const target = connection as unknown as Record<string, (params: unknown) => Promise<unknown>> | undefined;
  if (!target) {
    scope.postMessage({ type: "result", id: message.id, error: { code: -32603, message: "the client is not open" } });
    return;
  }
  target[message.method]!.call(connection, message.params).then(
    (result) => scope.postMessage({ type: "result", id: message.id, result: result ?? null }),
    (error: unknown) => scope.postMessage({ type: "result", id: message.id, error: toWireError(error) }),
  );
};
