/**
 * How agents hosted in one server process share its event loop. An agent that awaits its sends (every SDK's
 * `sessionUpdate` does) and whose client keeps up would otherwise stream a whole turn, megabytes, without the event
 * loop turning once (the socket takes that much before it pushes back), and every other connection of the process
 * (their requests, their agents' output) would wait for it. So an agent's `drain()` waits for the next turn of the
 * event loop once it sent `AGENT_TURN_SHARE_CHARS` since it last did, or once all the process's agents together sent
 * `PROCESS_TURN_SHARE_CHARS` in this turn: streaming agents take turns, and a request from anyone else waits for at
 * most about that much output, however many agents stream.
 */
import { nextTurn } from "../../transports/next-turn.js";

/** Output (UTF-16 units) one agent may send before it waits for the next turn. */
export const AGENT_TURN_SHARE_CHARS = 64 * 1024;
/** Output all the process's agents may send in one turn of the event loop before each waits for the next. */
export const PROCESS_TURN_SHARE_CHARS = 512 * 1024;

let spentThisTurn = 0;
let resetQueued = false;

const reset = (): void => {
  spentThisTurn = 0;
  resetQueued = false;
};

/** Counts output an agent sent in this turn of the event loop. */
export function spend(chars: number): void {
  spentThisTurn += chars;
  if (!resetQueued) {
    resetQueued = true;
    nextTurn(reset);
  }
}

/** Whether the process's agents have sent their share of this turn. */
export function processShareSpent(): boolean {
  return spentThisTurn >= PROCESS_TURN_SHARE_CHARS;
}
