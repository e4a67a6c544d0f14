/**
 * The seam for watching a session another client drives (`acp inspect --attach <url> <session-id>`), which needs
 * shared sessions on the server side (issue 18: several clients of one session, one driving, others observing).
 * `acp serve` offers them (docs/shared-sessions.md); `shared-observer.ts` is the source the command plugs in. Without a
 * source, `--attach` says so and exits 2.
 *
 * What is already in place for it, end to end: an observer is a lane of role `observer` on the feed, fed with the
 * frames of the watched session as both sides wrote them (`LaneHandle.bytes`); the page renders such a lane
 * read-only (no prompt box, permission requests shown but answered by the driving client), in its own lane beside
 * the page's own lanes. `test/e2e/inspect/observer-seam.test.ts` plugs a source in and checks the page shows it.
 */
import type { LaneHandle, LaneHub } from "./lane-hub.js";

/** Where an observed session's frames come from. */
export interface ObserverSource {
  /** A short description for the lane's label, e.g. the server and the session. */
  describe(url: string, sessionId: string): string;
  /**
   * Attaches to `sessionId` at `url` as an observer and feeds `lane` with every frame of the session, both
   * directions, until the session or the attachment ends. Rejects with a message that says what to do when the
   * server cannot be reached or refuses.
   */
  observe(url: string, sessionId: string, lane: LaneHandle): Promise<void>;
  /**
   * Checks, before the inspector starts, that `sessionId` can be observed at `url`; rejects with what is wrong and
   * what to do (the inspector then exits 2 without serving the page). Optional.
   */
  probe?(url: string, sessionId: string): Promise<void>;
}

/** Why observing is not available yet: shown by `--attach` and on the page. */
export const OBSERVER_UNAVAILABLE =
  "attaching as an observer needs shared sessions on the server (several clients of one session), which acpkit " +
  "does not offer yet (issue 18); until then, put acp inspect --tap in front of the agent the other client starts";

/** Opens an observer lane on `hub` fed by `source`; the lane closes when the source ends, with its reason. */
export async function observeSession(
  hub: LaneHub,
  source: ObserverSource,
  url: string,
  sessionId: string,
): Promise<void> {
  const lane = hub.open("observer", source.describe(url, sessionId));
  try {
    await source.observe(url, sessionId, lane);
    lane.close("the observed session ended");
  } catch (error) {
    lane.close(`observing ended: ${(error as Error).message}`);
    throw error;
  }
}
