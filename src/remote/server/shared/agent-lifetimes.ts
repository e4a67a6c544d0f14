/**
 * Which agents of a hub stay alive once their own client is gone: an agent lives on while a session of its keeps a
 * participant the `keepAlive` policy counts (controllers by default, or any participant), plus `lingerMs` after the
 * last one left (a client may reattach meanwhile).
 */
import type { AgentEnd } from "./participant.js";
import type { SharedSession } from "./shared-session.js";

export class AgentLifetimes {
  /** Agents nobody keeps, waiting `lingerMs` before they are stopped. */
  readonly #lingering = new Map<AgentEnd, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly keepAlive: "controller" | "participant",
    private readonly lingerMs: number,
    private readonly sessions: () => Iterable<SharedSession>,
  ) {}

  /** Whether someone other than `host`'s own client uses one of its sessions. */
  kept(host: AgentEnd): boolean {
    for (const session of this.sessions()) {
      if (session.host !== host) continue;
      for (const member of session.members)
        if ((member.client as unknown) !== host && (this.keepAlive === "participant" || member.isController))
          return true;
    }
    return false;
  }

  /** Someone left one of `host`'s sessions: once its client is gone and nobody keeps it, it is stopped. */
  check(host: AgentEnd): void {
    this.ended(host);
    if (!host.clientGone || this.kept(host)) return;
    const stop = () => {
      this.#lingering.delete(host);
      if (!this.kept(host)) host.endAgent("nobody uses its shared sessions any more");
    };
    if (this.lingerMs <= 0) return queueMicrotask(stop);
    // The last one to leave restarts the wait: lingerMs after them, not after an earlier departure.
    const timer = setTimeout(stop, this.lingerMs);
    timer.unref?.();
    this.#lingering.set(host, timer);
  }

  /** `host`'s agent ended (or is kept again): no wait for it any more. */
  ended(host: AgentEnd): void {
    clearTimeout(this.#lingering.get(host));
    this.#lingering.delete(host);
  }
}
