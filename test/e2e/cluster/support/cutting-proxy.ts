/**
 * A TCP proxy in front of one server that breaks SSE responses mid-stream, as a failing network, balancer or node
 * does: once a response on a connection has said `text/event-stream`, the connection is reset (both sides) after
 * `cutAfterBytes` more bytes, `cuts` times in all. It records the `Last-Event-ID` of every request it forwards.
 * Nothing here runs on its own.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  readonly url: string;
  /** Responses broken so far. */
  readonly cuts: number;
  /** The Last-Event-ID headers the client sent, in order. */
  readonly lastEventIds: readonly string[];
  close(): Promise<void>;
}

export async function cuttingProxy(
  upstream: { host: string; port: number; path: string },
  options: { cutAfterBytes: number; cuts: number },
): Promise<CuttingProxy> {
  let cuts = 0;
  const lastEventIds: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const target = createConnection({ host: upstream.host, port: upstream.port });
    sockets.add(client);
    sockets.add(target);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(target);
    };
    let streaming = false;
    let sent = 0;
    let head = "";
    const reset = () => {
      client.resetAndDestroy();
      target.resetAndDestroy();
    };
    client.on("data", (chunk: Buffer) => {
      for (const match of chunk.toString("latin1").matchAll(/^last-event-id:\s*(\S+)\r?$/gim))
        lastEventIds.push(match[1]!);
      target.write(chunk);
    });
    target.on("data", (chunk: Buffer) => {
      if (!streaming) {
        const text = head + chunk.toString("latin1", 0, Math.min(chunk.length, 4096));
        streaming = /content-type:\s*text\/event-stream/i.test(text);
        head = text.slice(-256);
      } else sent += chunk.length;
      if (streaming && sent >= options.cutAfterBytes && cuts < options.cuts) {
        cuts++;
        reset();
        return;
      }
      client.write(chunk);
    });
    client.on("error", () => target.destroy());
    target.on("error", () => client.destroy());
    client.on("end", () => target.end());
    target.on("end", () => client.end());
    client.on("close", forget);
    target.on("close", forget);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${upstream.path}`,
    get cuts() {
      return cuts;
    },
    lastEventIds,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
