/**
 * A shared session's update stream, sequenced: every `session/update` gets the next number (from 1), which clients
 * that speak shared sessions see as `params._meta.acpkit.seq`; the updates are kept, up to a byte budget (oldest
 * dropped first), for late joiners that ask for `historyPolicy: "full"`. Replay and live delivery happen in one
 * synchronous step (the session takes the snapshot and adds the joiner together), so no update is missed or shown
 * twice at the seam.
 *
 * An update nobody numbered live (only clients that do not speak shared sessions were there) is kept as the agent
 * wrote it and numbered when it is replayed: a session nobody joins costs no serialization.
 */
import { CLIENT_METHODS } from "../../../protocol/index.js";
import { isRecord } from "../../../jsonrpc/messages.js";

/** The text of a `session/update` with `params`, numbered `seq` (`_meta.acpkit.seq`; other `_meta` kept). */
export function numberedUpdate(params: Record<string, unknown>, seq: number): string {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const acpkit = meta !== undefined && isRecord(meta.acpkit) ? meta.acpkit : undefined;
  return JSON.stringify({
    jsonrpc: "2.0",
    method: CLIENT_METHODS.session_update,
    params: { ...params, _meta: { ...meta, acpkit: { ...acpkit, seq } } },
  });
}

/** The seq of a numbered update's text (`numberedUpdate` puts it last), or undefined when it has none. */
export function seqOfUpdate(text: string): number | undefined {
  const at = text.lastIndexOf('"seq":');
  if (at < 0 || at < text.length - 40) return undefined;
  const seq = Number.parseInt(text.slice(at + 6), 10);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
}

export class SessionHistory {
  #seq = 0;
  /** Kept updates: numbered texts, or (`#raw`) the agent's own text, numbered on replay. */
  #texts: string[] = [];
  #raw: boolean[] = [];
  #first = 0;
  #chars = 0;
  #dropped = 0;

  constructor(
    /** The most UTF-16 units of update text kept; 0 keeps none. */
    readonly maxChars: number,
  ) {}

  /** The sequence number of the last update (0: none yet). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** How many updates were dropped to stay within the budget (a `full` replay then starts after them). */
  get dropped(): number {
    return this.#dropped;
  }

  /** The number of the oldest update kept (lastSeq + 1 when none is kept). */
  get firstKeptSeq(): number {
    return this.#seq - (this.#texts.length - this.#first) + 1;
  }

  /** Numbers one update (its params) and returns the text clients that speak shared sessions get. */
  append(params: Record<string, unknown>): string {
    const text = numberedUpdate(params, this.#seq + 1);
    this.keep(text, false);
    return text;
  }

  /**
   * Keeps the next update: `text` numbered already (`raw` false), or the agent's own text (`raw` true: numbered
   * when replayed). Returns its number.
   */
  keep(text: string, raw: boolean): number {
    const seq = ++this.#seq;
    if (this.maxChars <= 0) return seq;
    this.#texts.push(text);
    this.#raw.push(raw);
    this.#chars += text.length;
    while (this.#chars > this.maxChars && this.#first < this.#texts.length) {
      this.#chars -= this.#texts[this.#first]!.length;
      this.#texts[this.#first++] = "";
      this.#dropped++;
    }
    if (this.#first > 1024 && this.#first * 2 > this.#texts.length) {
      this.#texts = this.#texts.slice(this.#first);
      this.#raw = this.#raw.slice(this.#first);
      this.#first = 0;
    }
    return seq;
  }

  /**
   * The session was taken over by another node (its agent reloaded it here): numbering continues after `lastSeq`,
   * the last number its participants may have been sent. The updates kept (the agent's replay while reloading) are
   * renumbered to end at `lastSeq` (a `full` replay to a later joiner then runs straight into the live updates).
   */
  rebase(lastSeq: number): void {
    if (lastSeq <= this.#seq) return;
    const shift = lastSeq - this.#seq;
    this.#seq = lastSeq;
    for (let i = this.#first; i < this.#texts.length; i++) {
      if (this.#raw[i]) continue;
      const text = this.#texts[i]!;
      const params = (JSON.parse(text) as { params: Record<string, unknown> }).params;
      const numbered = numberedUpdate(params, (seqOfUpdate(text) ?? 0) + shift);
      this.#texts[i] = numbered;
      this.#chars += numbered.length - text.length;
    }
  }

  /** The kept updates numbered after `seq`, oldest first (from the oldest kept when older ones were dropped). */
  replayAfter(seq: number): string[] {
    if (seq >= this.#seq) return [];
    return this.replay().slice(Math.max(0, seq - this.firstKeptSeq + 1));
  }

  /** The kept updates, oldest first, numbered. */
  replay(): string[] {
    const first = this.firstKeptSeq;
    const texts: string[] = [];
    for (let i = this.#first; i < this.#texts.length; i++) {
      const text = this.#texts[i]!;
      if (!this.#raw[i]) texts.push(text);
      else {
        const numbered = numberedUpdate(
          (JSON.parse(text) as { params: Record<string, unknown> }).params,
          first + i - this.#first,
        );
        // Numbered once: a second joiner gets it as it is.
        this.#texts[i] = numbered;
        this.#raw[i] = false;
        this.#chars += numbered.length - text.length;
        texts.push(numbered);
      }
    }
    return texts;
  }
}
