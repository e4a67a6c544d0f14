/**
 * `@acpkit/sdk/testing`: tools for testing code built on acpkit (or on any ACP transport) against a misbehaving wire.
 * Fault-injection wrappers for message links, `Stream`s and byte streams. Browser-safe. See docs/fault-injection.md.
 */
export {
  faultyLink,
  FaultyLink,
  faultyReadable,
  faultyWritable,
  injectedReadError,
  injectedWriteError,
  SeededRandom,
  withFaults,
  type FaultEvent,
  type FaultLog,
  type FaultRule,
  type Fragmentation,
  type Latency,
  type LinkFaultOptions,
  type MessageFaults,
  type ReadableFaultOptions,
  type ReceiveFaults,
  type SendFaults,
  type WritableFaultOptions,
} from "../transports/faults/index.js";
// Hostile text for testing that agent-provided text never reaches a terminal as control sequences.
export { ANY_CONTROL, CONTROL_SEQUENCES, HOSTILE_TEXT } from "../client/toolkit/hostile-text.js";
