/**
 * Fault-injection transports: wrappers that make a message link, a `Stream` or a byte stream misbehave on purpose
 * (latency, fragmentation at every byte, partial writes, dropped and duplicated messages, EPIPE, a peer that dies
 * mid-frame, a slow reader), seeded so a failing run can be replayed. Browser-safe; published as `@acpkit/sdk/testing`.
 */
export {
  faultyLink,
  withFaults,
  FaultyLink,
  type LinkFaultOptions,
  type MessageFaults,
  type ReceiveFaults,
  type SendFaults,
} from "./faulty-link.js";
export {
  faultyReadable,
  faultyWritable,
  type Fragmentation,
  type ReadableFaultOptions,
  type WritableFaultOptions,
} from "./faulty-bytes.js";
export {
  SeededRandom,
  injectedReadError,
  injectedWriteError,
  type FaultEvent,
  type FaultLog,
  type FaultRule,
  type Latency,
} from "./fault-plan.js";
