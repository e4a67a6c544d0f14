/**
 * Test helper: a TCP proxy on 127.0.0.1 in front of a server that can be paused, as a network that stops carrying
 * packets would: while paused, nothing sent either way is forwarded (the proxy holds it), and everything goes
 * through, in order, on `resume`. For tests only (not shipped).
 */
import { createServer, connect, type Socket } from "node:net";

export interface PausableProxy {
  readonly port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<PausableProxy> {
  const sockets = new Set<Socket>();
  let paused = false;
  // What arrived while paused, in arrival order, with where it goes.
  const held: Array<[Socket, Buffer]> = [];
  const forward = (from: Socket, to: Socket) =>
    from.on("data", (chunk: Buffer) => {
      if (paused) held.push([to, chunk]);
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on("error", () => socket.destroy());
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const [to, chunk] of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
