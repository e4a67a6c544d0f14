/**
 * `acpkit/wire`: conformance rules, cassettes (record and replay), and a scripted peer. Browser-safe; the Node
 * helpers (cassette files, a peer over a child's pipes) are in `acpkit/node`.
 */
export * from "./wire/index.js";
