/**
 * Node adapters for the wire tools: a `ScriptPeer` over Node streams (a child's pipes, a socket, stdio).
 */
import type { Readable, Writable } from "node:stream";
import { ScriptPeer, type ScriptPeerOptions } from "../../wire/script-peer.js";

/**
 * A `ScriptPeer` that reads `input` and writes `output`. The peer sees the end of `input` (or its error) as the
 * other side going away; write errors (EPIPE when the other side died) are swallowed: the end of input tells.
 */
export function scriptPeerOver(
  input: Readable,
  output: Writable,
  options: Omit<ScriptPeerOptions, "write">,
): ScriptPeer {
  output.on("error", () => {});
  const peer = new ScriptPeer({
    ...options,
    write: (text) => {
      if (!output.destroyed && !output.writableEnded) output.write(text);
    },
  });
  input.on("data", (chunk: Buffer | string) => peer.receive(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  input.once("end", () => peer.receiveEnd());
  input.once("close", () => peer.receiveEnd());
  input.once("error", (error) => peer.receiveEnd(error));
  return peer;
}
