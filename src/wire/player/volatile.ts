/**
 * What differs between two runs of the same conversation without meaning anything: ids the other side generates
 * (sessions, tool calls, terminals, messages, JSON-RPC ids), timestamps, and paths under a working directory that
 * moved. A `Correspondence` learns which recorded value became which live value, rewrites recorded frames before they
 * are sent, and compares live frames with recorded ones ignoring what is volatile. Ids the replaying side sent itself
 * are not volatile (`own`): the other side must use them as sent.
 */

/** Keys whose string values are generated ids: compared through the correspondence, not literally. */
export const ID_KEYS: ReadonlySet<string> = new Set([
  "sessionId",
  "toolCallId",
  "terminalId",
  "messageId",
  "requestId",
  "optionId",
  "elicitationId",
]);
/** Keys whose values are times: ignored. */
export const TIME_KEYS: ReadonlySet<string> = new Set([
  "updatedAt",
  "createdAt",
  "timestamp",
  "time",
  "startedAt",
  "endedAt",
  "lastUpdated",
]);

/** One difference between a recorded and a live frame. */
export interface Difference {
  /** JSON path inside the frame, e.g. `$.params.update.content.text`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Recorded -> live values, learned as the conversation goes. */
export class Correspondence {
  private readonly ids = new Map<string, string>();
  private readonly prefixes: Array<[string, string]> = [];

  constructor(private readonly ignored: ReadonlySet<string> = new Set()) {}

  /** Recorded paths under `recorded` are live paths under `live` (a working directory that moved). */
  mapPrefix(recorded: string, live: string): void {
    if (recorded === live || this.prefixes.some(([r]) => r === recorded)) return;
    this.prefixes.push([recorded, live]);
    this.prefixes.sort((a, b) => b[0].length - a[0].length);
  }

  /** The recorded id `recorded` is `live` in this run. */
  mapId(recorded: string, live: string): void {
    if (!this.ids.has(recorded)) this.ids.set(recorded, live);
  }

  /**
   * This side sent `sent` (the live copy of the recorded `recorded`): every id in it not learned before is this
   * side's own, fixed from now on. The other side must echo it as sent: answering with another permission option,
   * session or tool call id is a difference, not a new id to learn.
   */
  own(recorded: unknown, sent: unknown, key?: string): void {
    if (typeof recorded === "string" && typeof sent === "string") {
      if (key !== undefined && ID_KEYS.has(key)) this.mapId(recorded, sent);
    } else if (Array.isArray(recorded) && Array.isArray(sent)) {
      recorded.forEach((item, i) => this.own(item, sent[i], key));
    } else if (isObject(recorded) && isObject(sent)) {
      for (const [k, item] of Object.entries(recorded)) this.own(item, sent[k], k);
    }
  }

  /** The live value of a recorded string: a mapped id, or a path with its prefix moved. */
  liveString(value: string): string {
    const id = this.ids.get(value);
    if (id !== undefined) return id;
    for (const [recorded, live] of this.prefixes) {
      if (value === recorded || value.startsWith(`${recorded}/`) || value.startsWith(`${recorded}\\`))
        return live + value.slice(recorded.length);
    }
    return value;
  }

  /** A deep copy of a recorded value with every id and path made live. */
  toLive<T>(value: T): T {
    if (typeof value === "string") return this.liveString(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.toLive(item)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.toLive(item);
      return out as T;
    }
    return value;
  }

  /**
   * Compares a live value with a recorded one. Ids are learned on first sight and must stay consistent; times and
   * ignored keys are skipped; paths are compared after moving their prefix. Returns the differences (at most 20).
   */
  compare(recorded: unknown, live: unknown, path = "$"): Difference[] {
    const out: Difference[] = [];
    this.walk(recorded, live, path, undefined, out, true);
    return out.slice(0, 20);
  }

  /** True when `compare` would find no difference; learns nothing (to choose among candidate frames). */
  matches(recorded: unknown, live: unknown): boolean {
    const out: Difference[] = [];
    this.walk(recorded, live, "$", undefined, out, false);
    return out.length === 0;
  }

  private walk(
    recorded: unknown,
    live: unknown,
    path: string,
    key: string | undefined,
    out: Difference[],
    learn: boolean,
  ): void {
    if (out.length >= (learn ? 20 : 1)) return;
    if (key !== undefined && (TIME_KEYS.has(key) || this.ignored.has(key) || this.ignored.has(path))) return;
    if (typeof recorded === "string" && typeof live === "string") {
      if (key !== undefined && ID_KEYS.has(key)) {
        const known = this.ids.get(recorded);
        if (known === undefined) {
          if (learn) this.ids.set(recorded, live);
        } else if (known !== live)
          out.push({ path, expected: known === recorded ? recorded : `${recorded} (live: ${known})`, actual: live });
        return;
      }
      if (this.liveString(recorded) !== live) out.push({ path, expected: recorded, actual: live });
      return;
    }
    if (Array.isArray(recorded) && Array.isArray(live)) {
      const n = Math.max(recorded.length, live.length);
      for (let i = 0; i < n; i++) {
        if (i >= recorded.length) out.push({ path: `${path}[${i}]`, expected: undefined, actual: live[i] });
        else if (i >= live.length) out.push({ path: `${path}[${i}]`, expected: recorded[i], actual: undefined });
        else this.walk(recorded[i], live[i], `${path}[${i}]`, undefined, out, learn);
      }
      return;
    }
    if (isObject(recorded) && isObject(live)) {
      for (const k of new Set([...Object.keys(recorded), ...Object.keys(live)])) {
        const child = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
        if (!(k in live)) {
          if (!TIME_KEYS.has(k) && !this.ignored.has(k))
            out.push({ path: child, expected: recorded[k], actual: undefined });
        } else if (!(k in recorded)) {
          if (!TIME_KEYS.has(k) && !this.ignored.has(k))
            out.push({ path: child, expected: undefined, actual: live[k] });
        } else this.walk(recorded[k], live[k], child, k, out, learn);
      }
      return;
    }
    if (!Object.is(recorded, live)) out.push({ path, expected: recorded, actual: live });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
