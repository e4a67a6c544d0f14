/**
 * The current process's stdin/stdout as an ACP `Stream`: what an agent launched by a client talks over.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports — the agent reads JSON-RPC messages from stdin
 * and writes them to stdout, one per line; it MUST NOT write anything to stdout that is not a valid ACP
 * message (log to stderr).
 */
import type { Stream } from "../../jsonrpc/link.js";
import { nodeNdJsonStream, type NodeNdJsonOptions } from "./node-bytes.js";

/** Options of `stdioStream`: those of `ndJsonStream` (`maxMessageBytes`, ...). */
export type StdioStreamOptions = NodeNdJsonOptions;

/**
 * `process.stdin`/`process.stdout` as a `Stream` with a fast `[LINK]`, reading and writing the Node streams
 * directly. After `close()` (or the end of stdin) stdin is paused and unref'd, so it no longer keeps the
 * process alive; stdout is flushed but not ended (Node does not close it). EPIPE on stdout (the client went
 * away) ends the link with `closed(error)` instead of crashing the process.
 */
export function stdioStream(options: StdioStreamOptions = {}): Stream {
  return nodeNdJsonStream(process.stdin, process.stdout, { ...options, endOutput: false, releaseInput: "unref" });
}
