/**
 * The wire tools, browser-safe: the conformance rule engine (`WireChecker`, `ALL_RULES`), the cassette format
 * (`readCassette`, `CassetteRecorder`), a scripted peer for driving one side frame by frame (`ScriptPeer`), and the
 * players that replay a cassette (`replayAgent`, `replayClient`).
 */
export { WireChecker, type WireCheckerOptions } from "./wire-checker.js";
export {
  ALL_RULES,
  CANCEL_RACE_MS,
  type Finding,
  type Rule,
  type RuleContext,
  type RuleState,
  type Severity,
} from "./rules/index.js";
export type { ConversationView } from "./conversation.js";
export {
  frameText,
  sessionIdOf,
  updateKindOf,
  TURN_CONTENT_UPDATES,
  type Side,
  type WireEvent,
  type WireEventType,
  type WireFrame,
} from "./events.js";
export {
  CASSETTE_VERSION,
  CassetteFormatError,
  entryLine,
  readCassette,
  type Cassette,
  type CassetteEntry,
  type CassetteHeader,
  type EntryNotes,
} from "./cassette.js";
export { CassetteRecorder, type CassetteRecorderOptions, type LineSink } from "./recorder.js";
export { ScriptPeer, PeerClosedError, WaitTimeoutError, type ScriptPeerOptions } from "./script-peer.js";
export { scriptPeerOverWeb } from "./web-peer.js";
export { WireObserver, type WireObserverOptions } from "./wire-observer.js";
export { isAbsolutePath, isInside, isInsideAny } from "./paths.js";
export { replayAgent } from "./player/replay-agent.js";
export { replayClient, firstCwd, type ReplayClientOptions } from "./player/replay-client.js";
export type { Divergence, ReplayOptions, ReplayResult } from "./player/common.js";
export { Correspondence, ID_KEYS, TIME_KEYS, type Difference } from "./player/volatile.js";
export { createMemoryByteStreams, type ByteStreamEnd } from "../transports/memory.js";
