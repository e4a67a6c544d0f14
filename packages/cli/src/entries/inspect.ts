/**
 * `@acpkit/cli/inspect`: the inspector (`acp inspect`) in code, and its seam for observer lanes: what shared
 * sessions (issue 18) will plug in to watch a session another client drives (`ObserverSource`).
 */
export { runInspect, InspectUsageError, type InspectIo, type InspectOptions } from "../apps/inspect/run-inspect.js";
export { OBSERVER_UNAVAILABLE, observeSession, type ObserverSource } from "../apps/inspect/observer-seam.js";
export type { LaneHandle } from "../apps/inspect/lane-hub.js";
export type { InspectServer } from "../apps/inspect/inspect-server.js";
