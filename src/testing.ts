/**
 * `acpkit/testing`: tools for testing code built on acpkit (or on any ACP transport) against a misbehaving wire.
 * Fault-injection wrappers for message links, `Stream`s and byte streams. Browser-safe. See docs/fault-injection.md.
 */
export * from "./transports/faults/index.js";
