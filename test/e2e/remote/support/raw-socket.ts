/**
 * Raw TCP for admission tests: exact request bytes (a Host or a path no HTTP client would send, headers without their
 * body, a drip), the answer's status line and headers as they arrive, and when the server closed the socket.
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

/** A connected socket whose answer and close are observed. */
export interface RawSocket {
  readonly socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Whether the server closed (or reset) the connection. */
  readonly closed: boolean;
  /** Resolves with the status and headers once a response head arrived; rejects after `ms`. */
  head(ms?: number): Promise<{ status: number; headers: Record<string, string> }>;
  /** Resolves once the server closed the socket; rejects after `ms`. */
  whenClosed(ms?: number): Promise<void>;
  /** Writes, ignoring errors (the server may have closed already). */
  write(text: string | Buffer): boolean;
  destroy(): void;
}

/** Connects to 127.0.0.1:`port` (from `localAddress` when given). */
export function openRaw(port: number, localAddress?: string): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ...(localAddress ? { localAddress } : {}) });
    let text = "";
    let closed = false;
    const wakers = new Set<() => void>();
    const wake = () => {
      for (const waker of wakers) waker();
    };
    socket.on("data", (chunk: Buffer) => {
      if (text.length < 65536) text += chunk.toString("latin1");
      wake();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      wake();
    });
    const until = <T>(check: () => T | undefined, ms: number, what: string): Promise<T> =>
      new Promise((done, fail) => {
        const test = () => {
          const value = check();
          if (value === undefined) return;
          clearTimeout(timer);
          wakers.delete(test);
          done(value);
        };
        const timer = setTimeout(() => {
          wakers.delete(test);
          fail(new Error(`${what} within ${ms} ms; received: ${JSON.stringify(text.slice(0, 300))}`));
        }, ms);
        wakers.add(test);
        test();
      });
    socket.once("connect", () =>
      resolve({
        socket,
        received: () => text,
        get closed() {
          return closed;
        },
        head: (ms = 5000) =>
          until(
            () => {
              const end = text.indexOf("\r\n\r\n");
              if (end === -1) return undefined;
              const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
              const headers: Record<string, string> = {};
              for (const line of lines) {
                const colon = line.indexOf(":");
                headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
              }
              return { status: Number(statusLine!.split(" ")[1]), headers };
            },
            ms,
            "no response head",
          ),
        whenClosed: (ms = 5000) =>
          until(() => (closed ? true : undefined), ms, "the server did not close the socket").then(() => {}),
        write: (data) => {
          if (socket.destroyed) return false;
          try {
            return socket.write(data);
          } catch {
            return false;
          }
        },
        destroy: () => socket.destroy(),
      }),
    );
    socket.once("error", reject);
  });
}

/** Request head text: `METHOD target HTTP/1.1`, then the headers (in order), then the blank line. */
export function requestHead(method: string, target: string, headers: Record<string, string>): string {
  return `${method} ${target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
}

/** The resident set size of process `pid`, and its peak, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}
