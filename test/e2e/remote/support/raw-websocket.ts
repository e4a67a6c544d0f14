/**
 * A WebSocket client written by hand on a bare TCP socket, for fault tests: it does the upgrade, sends masked text
 * frames and reads the server's frames, and answers pings only until told to stop; it never closes on its own (no
 * close frame, no FIN): once `stopAnswering()` is called it is a peer that went silent, as a half-open connection
 * looks to the server.
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

export interface SilentWebSocket {
  readonly socket: Socket;
  /** The `Acp-Connection-Id` of the 101. */
  readonly connectionId: string;
  /** Pings received since `stopAnswering()` (none of them answered). */
  readonly unansweredPings: number;
  /** Whether the server ended the TCP connection. */
  readonly ended: boolean;
  /** Resolves when the server ended the TCP connection. */
  readonly closed: Promise<void>;
  /** From now on, answer no ping. */
  stopAnswering(): void;
  /** Sends one masked text frame. */
  sendText(text: string): void;
  /** The next text frame (in order of arrival). */
  nextText(): Promise<string>;
  /** Destroys the socket (for cleanup). */
  destroy(): void;
}

/** One masked client frame with `opcode` and `payload` (RFC 6455 section 5.2). */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header =
    length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length]) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (length >= 126 && length < 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else if (length >= 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

/** Opens a WebSocket on `url` (ws://host:port/path) with `headers` on the upgrade; rejects unless it gets a 101. */
export function openSilentWebSocket(url: string, headers: Record<string, string>): Promise<SilentWebSocket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    let buffer = Buffer.alloc(0);
    let connectionId: string | undefined;
    let unansweredPings = 0;
    let answering = true;
    let ended = false;
    const texts: string[] = [];
    const waiters: Array<(text: string) => void> = [];
    let onClosed!: () => void;
    const closed = new Promise<void>((done) => (onClosed = done));
    socket.on("error", () => {});
    socket.on("close", () => {
      ended = true;
      onClosed();
    });
    socket.on("connect", () => {
      const lines = [
        `GET ${target.pathname} HTTP/1.1`,
        `Host: ${target.host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Protocol: acp",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        "",
        "",
      ];
      socket.write(lines.join("\r\n"));
    });
    const frames = () => {
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0]! & 0x0f;
        let length = buffer[1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 0x9) {
          if (answering) socket.write(clientFrame(0xa, Buffer.from(payload)));
          else unansweredPings++;
        } else if (opcode === 0x1) {
          const text = payload.toString("utf8");
          const waiter = waiters.shift();
          if (waiter) waiter(text);
          else texts.push(text);
        }
      }
    };
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (connectionId === undefined) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = buffer.subarray(0, end).toString("latin1");
        buffer = buffer.subarray(end + 4);
        const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
        if (status !== "101") {
          socket.destroy();
          reject(new Error(`the upgrade was answered ${status ?? "with garbage"}: ${head}`));
          return;
        }
        connectionId = /^acp-connection-id:\s*(\S+)\s*$/im.exec(head)?.[1] ?? "";
        resolve({
          socket,
          connectionId,
          get unansweredPings() {
            return unansweredPings;
          },
          get ended() {
            return ended;
          },
          closed,
          stopAnswering: () => void (answering = false),
          sendText: (text) => void socket.write(clientFrame(0x1, Buffer.from(text, "utf8"))),
          nextText: () => {
            const text = texts.shift();
            return text !== undefined ? Promise.resolve(text) : new Promise((wake) => waiters.push(wake));
          },
          destroy: () => socket.destroy(),
        });
      }
      frames();
    });
    socket.once("close", () => {
      if (connectionId === undefined) reject(new Error("the socket closed before the upgrade was answered"));
    });
  });
}
