/**
 * A shared session's update stream, sequenced: every `session/update` the clients see gets the next number
 * (`params._meta.acpkit.seq`, from 1), and the texts are kept, up to a byte budget (oldest dropped first), for late
 * joiners that ask for `historyPolicy: "full"`. Replay and live delivery happen in one synchronous step (the
 * session takes the snapshot and adds the joiner together), so no update is missed or shown twice at the seam.
 */
import { CLIENT_METHODS } from "../../../protocol/index.js";
import { isRecord } from "../../../jsonrpc/messages.js";

export class SessionHistory {
  #seq = 0;
  #texts: string[] = [];
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

  /**
   * Numbers one `session/update` (its params, as the agent or the server made them) and returns the text every
   * participant gets: the params with `_meta.acpkit.seq` added (other `_meta` kept).
   */
  append(params: Record<string, unknown>): string {
    const seq = ++this.#seq;
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const acpkit = meta !== undefined && isRecord(meta.acpkit) ? meta.acpkit : undefined;
    const text = JSON.stringify({
      jsonrpc: "2.0",
      method: CLIENT_METHODS.session_update,
      params: { ...params, _meta: { ...meta, acpkit: { ...acpkit, seq } } },
    });
    if (this.maxChars > 0) {
      this.#texts.push(text);
      this.#chars += text.length;
      while (this.#chars > this.maxChars && this.#first < this.#texts.length) {
        this.#chars -= this.#texts[this.#first]!.length;
        this.#texts[this.#first++] = "";
        this.#dropped++;
      }
      if (this.#first > 1024 && this.#first * 2 > this.#texts.length) {
        this.#texts = this.#texts.slice(this.#first);
        this.#first = 0;
      }
    }
    return text;
  }

  /** The kept updates, oldest first. */
  replay(): string[] {
    return this.#texts.slice(this.#first);
  }
}
