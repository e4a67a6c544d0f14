/**
 * An HTTP proxy in front of one server that ends SSE responses early but cleanly (the chunked body's last chunk, as
 * if complete), as a balancer may do with the response of a node that died: after `endAfterBytes` bytes of a
 * `text/event-stream` response, `ends` times in all, the response to the client is ended and the one from the server
 * dropped. Everything else passes through. It records the `Last-Event-ID` of every request. Nothing here runs on its
 * own.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface EndingProxy {
  readonly url: string;
  /** Responses ended early so far. */
  readonly ends: number;
  /** The Last-Event-ID headers the client sent, in order. */
  readonly lastEventIds: readonly string[];
  close(): Promise<void>;
}

export async function endingProxy(
  upstream: { host: string; port: number; path: string },
  options: { endAfterBytes: number; ends: number },
): Promise<EndingProxy> {
  let ends = 0;
  const lastEventIds: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const lastEventId = incoming.headers["last-event-id"];
    if (typeof lastEventId === "string") lastEventIds.push(lastEventId);
    const headers: IncomingHttpHeaders = { ...incoming.headers, host: `${upstream.host}:${upstream.port}` };
    const forward = request(
      { host: upstream.host, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        const streaming = String(answer.headers["content-type"] ?? "").startsWith("text/event-stream");
        // No content-length on an SSE response: Node sends it chunked, and `end()` is a clean end.
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        let sent = 0;
        let ended = false;
        answer.on("data", (chunk: Buffer) => {
          if (ended) return;
          if (streaming && ends < options.ends && sent + chunk.length > options.endAfterBytes) {
            ends++;
            ended = true;
            outgoing.end(chunk.subarray(0, Math.max(0, options.endAfterBytes - sent)));
            answer.destroy();
            return;
          }
          sent += chunk.length;
          outgoing.write(chunk);
        });
        answer.on("end", () => {
          if (!ended) outgoing.end();
        });
        answer.on("error", () => outgoing.destroy());
      },
    );
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.path}`,
    get ends() {
      return ends;
    },
    lastEventIds,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
