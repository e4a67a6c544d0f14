/**
 * The "waiting" indicator: frames of a spinner and the status line under a running turn. Pure: the UI ticks it.
 */
import type { ChatPainter } from "./paint.js";

const UNICODE_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const ASCII_FRAMES = ["-", "\\", "|", "/"];

/** The spinner frame for tick `tick` (unicode braille dots, or ASCII for dumb terminals). */
export function spinnerFrame(tick: number, ascii = false): string {
  const frames = ascii ? ASCII_FRAMES : UNICODE_FRAMES;
  return frames[((tick % frames.length) + frames.length) % frames.length]!;
}

/** `4.2s`, `1m 05s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
}

/** The status line under a running turn: spinner, what is happening, elapsed time, and the Ctrl-C hint. */
export function statusLine(
  options: { tick: number; elapsedMs: number; label: string; ascii?: boolean; cancelling?: boolean },
  paint: ChatPainter,
): string {
  const frame = paint.cyan(spinnerFrame(options.tick, options.ascii));
  const hint = options.cancelling ? "cancelling… (Ctrl-C again quits)" : "Ctrl-C cancels";
  return `${frame} ${options.label} ${paint.dim(`${formatElapsed(options.elapsedMs)} · ${hint}`)}`;
}
