/**
 * Reading a POST body with a size limit: a `Content-Length` over the limit is refused before reading, a body that
 * grows past it is cancelled as soon as it does, so an oversized body is never buffered whole.
 */

/** The body's text, or `undefined` when it is larger than `maxBytes`. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return undefined;
  }
  const body = request.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
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
