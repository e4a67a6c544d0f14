/**
 * Cleartext HTTP/2 (h2c, "prior knowledge") and HTTP/1.1 on one port: Node's cleartext HTTP/2 server cannot fall
 * back to HTTP/1.1 (there is no TLS ALPN to negotiate with), so the first bytes of each connection decide: the
 * HTTP/2 connection preface ("PRI * HTTP/2.0") goes to an HTTP/2 server, anything else to an HTTP/1.1 server
 * (which also handles WebSocket upgrades). Opt-in: browsers never speak h2c; it is for proxies and Node clients.
 *
 * Spec: RFC 9113 section 3.3 (prior knowledge),
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import {
  createServer as createHttp1Server,
  type IncomingMessage,
  type Server as Http1Server,
  type ServerResponse,
} from "node:http";
import {
  createServer as createHttp2Server,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { Duplex } from "node:stream";

/** The three servers: `net` listens and hands each connection to `http1` or `http2`. */
export interface CleartextServers {
  readonly net: NetServer;
  readonly http1: Http1Server;
  readonly http2: Http2Server;
}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n");

/** A `net` server dispatching connections by their first bytes; `handler` serves requests of both versions. */
export function createCleartextServers(
  handler: (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => void,
): CleartextServers {
  const http1 = createHttp1Server(handler);
  const http2 = createHttp2Server(handler);
  const net = createNetServer((socket: Socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const decided = head.length >= PREFACE.length || !PREFACE.subarray(0, head.length).equals(head);
      if (!decided) return;
      socket.off("data", onData);
      if (head.subarray(0, PREFACE.length).equals(PREFACE)) {
        // An HTTP/2 session reads its socket's handle directly and would miss bytes put back with unshift(): give it
        // a stream that starts with them instead.
        http2.emit("connection", replaying(socket, head));
        return;
      }
      socket.pause();
      socket.unshift(head);
      http1.emit("connection", socket);
      socket.resume();
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
  return { net, http1, http2 };
}

/** A duplex over `socket` whose readable side starts with `head`, exposing the socket's addresses. */
function replaying(socket: Socket, head: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  duplex.push(head);
  socket.on("data", (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  socket.on("close", () => duplex.destroy());
  for (const name of ["remoteAddress", "remotePort", "localAddress", "localPort", "remoteFamily"] as const) {
    Object.defineProperty(duplex, name, { get: () => socket[name] });
  }
  return duplex;
}
