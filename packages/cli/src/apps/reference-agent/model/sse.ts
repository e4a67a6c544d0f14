/**
 * Server-sent events, as OpenAI-compatible servers stream chat completions: events separated by a blank line,
 * each event's `data:` lines joined with newlines; comments (`:`) and other fields are ignored. The stream ends
 * at the end of the body or at a `[DONE]` event.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

/** Yields the data of each event of `body`, `[DONE]` excluded. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) {
            const event = data.join("\n");
            data = [];
            if (event.trim() === "[DONE]") return;
            yield event;
          }
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
      }
      if (done) {
        if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
        if (data.length > 0 && data.join("\n").trim() !== "[DONE]") yield data.join("\n");
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
