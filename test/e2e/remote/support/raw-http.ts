/**
 * Bare HTTP/1.1 for fault tests: POSTs with fetch, SSE streams on their own sockets (`node:http`, no agent) that a
 * test can cut without a goodbye, as a client that vanishes does.
 */
import { request, type ClientRequest } from "node:http";

/** POSTs a JSON body; the status, headers and text. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export interface RawSse {
  next(): Promise<any>;
  until(test: (event: any) => boolean): Promise<any>;
  /** Destroys the socket: no FIN handshake courtesy, no DELETE. */
  cut(): void;
}

/** Opens an SSE stream on its own socket. */
export function openRawSse(url: string, headers: Record<string, string>): Promise<RawSse> {
  return new Promise((resolve, reject) => {
    const queue: any[] = [];
    const waiters: Array<(event: any) => void> = [];
    let buffer = "";
    const req: ClientRequest = request(
      url,
      { method: "GET", agent: false, headers: { accept: "text/event-stream", ...headers } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`SSE GET answered ${response.statusCode}`));
          return;
        }
        response.setEncoding("utf8");
        response.on("data", (text: string) => {
          buffer += text;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const data = buffer
              .slice(0, end)
              .split("\n")
              .filter((line) => line.startsWith("data:"))
              .map((line) => line.slice(5).trimStart())
              .join("\n");
            buffer = buffer.slice(end + 2);
            if (!data) continue;
            const event = JSON.parse(data);
            const waiter = waiters.shift();
            if (waiter) waiter(event);
            else queue.push(event);
          }
        });
        response.on("error", () => {});
        const next = () =>
          queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise<any>((wake) => waiters.push(wake));
        resolve({
          next,
          until: async (test) => {
            for (;;) {
              const event = await next();
              if (test(event)) return event;
            }
          },
          cut: () => req.destroy(),
        });
      },
    );
    req.on("error", (error) => reject(error));
    req.end();
  });
}
