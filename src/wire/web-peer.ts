/**
 * A `ScriptPeer` over web byte streams (a `createMemoryByteStreams()` end, a WebSocket adapted to streams, fetch
 * bodies): for tests that replay a cassette in memory, and for the browser.
 */
import { ScriptPeer, type ScriptPeerOptions } from "./script-peer.js";

/** A peer that reads `input` and writes `output` (UTF-8). Reading starts at once; the end of `input` ends the peer. */
export function scriptPeerOverWeb(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: Omit<ScriptPeerOptions, "write">,
): ScriptPeer {
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  const peer = new ScriptPeer({ ...options, write: (text) => void writer.write(encoder.encode(text)).catch(() => {}) });
  void (async () => {
    const reader = input.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        peer.receive(value);
      }
      peer.receiveEnd();
    } catch (error) {
      peer.receiveEnd(error);
    }
  })();
  return peer;
}
