/**
 * A scripted ACP endpoint on a real socket (127.0.0.1, node:http, and `ws` for upgrades): each test answers the
 * client's requests by hand, to produce what a well-behaved server never does (malformed SSE, oversized events,
 * error statuses, refused upgrades). Every request is recorded with its body.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

export interface ScriptedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as JSON, when it is JSON. */
  json: Record<string, unknown> | undefined;
}

export type HttpScript = (request: ScriptedRequest, res: ServerResponse) => void | Promise<void>;
export type UpgradeScript = (
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  accept: (onSocket: (ws: WebSocket) => void) => void,
) => void;

export interface ScriptedServer {
  readonly url: string;
  readonly requests: ScriptedRequest[];
  /** Resolves with the first request (from index `from`) that passes `test`. */
  until(test: (request: ScriptedRequest) => boolean, what: string, ms?: number): Promise<ScriptedRequest>;
  close(): Promise<void>;
}

/** `upgradeHeaders` are added to every 101 (e.g. a `Set-Cookie`). */
export async function scriptedServer(
  http: HttpScript,
  upgrade?: UpgradeScript,
  upgradeHeaders: string[] = [],
): Promise<ScriptedServer> {
  const requests: ScriptedRequest[] = [];
  const waiters = new Set<() => void>();
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.once("close", () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      const request = { method: req.method ?? "", headers: req.headers, body, json };
      requests.push(request);
      for (const wake of [...waiters]) wake();
      void http(request, res);
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  wss.on("headers", (headers) => headers.push(...upgradeHeaders));
  if (upgrade) {
    server.on("upgrade", (req, socket, head) =>
      upgrade(req, socket, head, (onSocket) => wss.handleUpgrade(req, socket, head, onSocket)),
    );
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    requests,
    until: (test, what, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = requests.find(test);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out waiting for ${what}; requests: ` +
                `${JSON.stringify(requests.map((r) => [r.method, r.body.slice(0, 120)]))}`,
            ),
          );
        }, ms);
        if (!check()) waiters.add(check);
      }),
    close: async () => {
      for (const res of open) res.destroy();
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers `initialize` (200, JSON, `Acp-Connection-Id: conn-1`) with a plain result. */
export function answerInitialize(request: ScriptedRequest, res: ServerResponse, connectionId = "conn-1"): void {
  res.writeHead(200, { "Content-Type": "application/json", "Acp-Connection-Id": connectionId });
  res.end(
    JSON.stringify({
      jsonrpc: "2.0",
      id: request.json!.id,
      result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    }),
  );
}

/** Starts an SSE answer and returns a writer for it. */
export function openSse(res: ServerResponse): (text: string) => void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.flushHeaders();
  return (text) => void res.write(text);
}

/** `data: <json>\n\n`. */
export function sseEvent(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}
