/**
 * A `fetch` over `node:https` (HTTP/1.1) that trusts one CA: what a Node program passes as the remote client's
 * `fetch` option to reach a server with a private certificate (Node's global fetch cannot be given a CA without
 * undici). It records the HTTP version of every answer, so a test can show which protocol carried the requests.
 */
import { request } from "node:https";
import { Readable } from "node:stream";

export interface HttpsFetch {
  readonly fetch: typeof globalThis.fetch;
  /** `httpVersion` of each answer, in order. */
  readonly versions: string[];
}

export function httpsFetch(ca: Buffer): HttpsFetch {
  const versions: string[] = [];
  const fetchImpl = (input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const sent = request(url, { method: init.method ?? "GET", headers, ca, agent: false }, (response) => {
        versions.push(response.httpVersion);
        const answer = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
            answer.append(name, item);
        }
        const status = response.statusCode ?? 0;
        const body =
          status === 204 || status === 304 ? null : (Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>);
        if (body === null) response.resume();
        resolve(new Response(body, { status, statusText: response.statusMessage ?? "", headers: answer }));
      });
      sent.on("error", reject);
      const signal = init.signal;
      if (signal) {
        if (signal.aborted) sent.destroy(signal.reason as Error);
        signal.addEventListener("abort", () => sent.destroy(signal.reason as Error), { once: true });
      }
      sent.end(typeof init.body === "string" ? init.body : undefined);
    });
  return { fetch: fetchImpl as typeof globalThis.fetch, versions };
}
