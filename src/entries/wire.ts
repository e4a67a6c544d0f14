/**
 * `@acpkit/sdk/wire`: conformance rules, cassettes (record and replay), and a scripted peer. Browser-safe; the Node
 * helpers (cassette files, a peer over a child's pipes) are in `@acpkit/sdk/node`.
 */
export * from "../wire/index.js";
export { SPEC } from "../wire/rules/types.js";
// Frame-level building blocks for tools that stand on the wire (a bridge, a tap): a line splitter that never
// buffers an oversized line, and the envelope sketch that finds a frame's id and method wherever they stand.
export { LineSplitter, type LineHandler } from "../transports/line-splitter.js";
export { sketchEnvelope, type EnvelopeSketch } from "../jsonrpc/envelope-scanner.js";
