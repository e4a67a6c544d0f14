/**
 * Reading a POST body with a size limit, a deadline and a server-wide budget: a `Content-Length` over the limit is
 * refused before reading, a body that grows past it is cancelled as soon as it does, so an oversized body is never
 * buffered whole; a body still arriving at the deadline is cancelled (408); the bytes every body being read holds
 * count against one budget, and a body that would pass it is cancelled (503), so many slow bodies cost at most that.
 */

/** The bytes of bodies being read, all requests of a server together, against `maxBufferedRequestBytes`. */
export class BodyBudget {
  #held = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` if they fit. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}

/** Why a body was not read: the status and the message for the client. */
export interface BodyRefusal {
  readonly status: 408 | 413 | 503;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

/** How `readBodyText` reads. */
export interface BodyReadOptions {
  readonly maxBytes: number;
  /** The body must have arrived whole this long after reading starts. */
  readonly timeoutMs: number;
  /** The server's budget for bodies being read. */
  readonly budget?: BodyBudget;
}

/** The body's text, or why it was not read (its stream cancelled). */
export async function readBodyText(request: Request, options: BodyReadOptions): Promise<string | BodyRefusal> {
  const { maxBytes, timeoutMs, budget } = options;
  const tooLarge: BodyRefusal = {
    status: 413,
    message: `Payload Too Large: the body is over ${maxBytes} bytes (maxRequestBodyBytes); send smaller messages or raise the limit`,
  };
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return tooLarge;
  }
  const body = request.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let held = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const stop = async (refusal: BodyRefusal): Promise<BodyRefusal> => {
    await reader.cancel().catch(() => {});
    return refusal;
  };
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout")
        return await stop({
          status: 408,
          message: `Request Timeout: the body did not arrive within ${timeoutMs} ms (requestBodyTimeoutMs); send it at once`,
        });
      const { value, done } = next;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) return await stop(tooLarge);
      if (budget !== undefined && !budget.take(value.byteLength))
        return await stop({
          status: 503,
          message: `Service Unavailable: the server is reading ${budget.maxBytes} bytes of request bodies already (maxBufferedRequestBytes); retry shortly`,
          headers: { "Retry-After": "1" },
        });
      chunks.push(value);
      held += value.byteLength;
    }
    return decode(chunks, total);
  } finally {
    clearTimeout(timer);
    budget?.give(held);
  }
}

function decode(chunks: Uint8Array[], total: number): string {
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(whole);
}

/** True when a `Content-Type` is JSON (`application/json`, parameters such as `charset` allowed). */
export function isJsonContentType(contentType: string | null): boolean {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

/** True when an `Accept` header names `text/event-stream` (the RFD: it MUST include it; wildcards do not count). */
export function acceptsEventStream(accept: string | null): boolean {
  if (accept === null) return false;
  return accept.split(",").some((part) => part.split(";", 1)[0]!.trim().toLowerCase() === "text/event-stream");
}
