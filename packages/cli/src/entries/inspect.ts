/**
 * `@acpkit/cli/inspect`: the inspector (`acp inspect`) in code, and its seam for observer lanes (`ObserverSource`),
 * with the source `acp inspect --attach` uses: an observer of an `acp serve`'s shared session.
 */
export { runInspect, InspectUsageError, type InspectIo, type InspectOptions } from "../apps/inspect/run-inspect.js";
export { OBSERVER_UNAVAILABLE, observeSession, type ObserverSource } from "../apps/inspect/observer-seam.js";
export type { LaneHandle } from "../apps/inspect/lane-hub.js";
export type { InspectServer } from "../apps/inspect/inspect-server.js";
export { sharedSessionObserver } from "../apps/inspect/shared-observer.js";
