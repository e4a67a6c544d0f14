/**
 * A bare HTTP/2 client for the remote tests (`node:http2`): requests on one multiplexed session, JSON answers, and
 * SSE streams read event by event.
 */
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";

export interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export class H2Client {
  readonly session: ClientHttp2Session;

  constructor(
    authority: string,
    private readonly baseHeaders: Record<string, string>,
    options: { ca?: Buffer } = {},
  ) {
    this.session = connect(authority, options.ca ? { ca: options.ca } : {});
    this.session.on("error", () => {});
  }

  /** Resolves with the negotiated protocol once connected ("h2" over TLS, "h2c" in cleartext). */
  connected(): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      if (!this.session.connecting) return resolve(this.session.alpnProtocol);
      this.session.once("connect", () => resolve(this.session.alpnProtocol));
      this.session.once("error", reject);
    });
  }

  /** One request; the whole answer. */
  request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<H2Answer> {
    const stream = this.#open(method, path, headers, body);
    return new Promise((resolve, reject) => {
      let status = 0;
      let responseHeaders: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on("response", (received) => {
        responseHeaders = received;
        status = Number(received[":status"]);
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () =>
        resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString("utf8") }),
      );
      stream.on("error", reject);
    });
  }

  /** Opens an SSE stream; `next()` gives each event's parsed data. */
  async events(
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; next(): Promise<any>; close(): void }> {
    const stream = this.#open("GET", path, { accept: "text/event-stream", ...headers });
    const status = await new Promise<number>((resolve, reject) => {
      stream.once("response", (received) => resolve(Number(received[":status"])));
      stream.once("error", reject);
    });
    const queue: any[] = [];
    const waiters: Array<(value: any) => void> = [];
    let buffer = "";
    stream.setEncoding("utf8");
    stream.on("data", (text: string) => {
      buffer += text;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (!data) continue;
        const event = JSON.parse(data);
        const waiter = waiters.shift();
        if (waiter) waiter(event);
        else queue.push(event);
      }
    });
    stream.on("end", () => {
      for (const waiter of waiters.splice(0)) waiter(undefined);
    });
    return {
      status,
      next: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolve) => waiters.push(resolve))),
      close: () => stream.close(),
    };
  }

  close(): void {
    this.session.close();
  }

  #open(method: string, path: string, headers: Record<string, string>, body?: unknown): ClientHttp2Stream {
    const stream = this.session.request({
      ":method": method,
      ":path": path,
      ...this.baseHeaders,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    });
    if (body !== undefined) stream.end(JSON.stringify(body));
    else if (method !== "GET") stream.end();
    return stream;
  }
}
