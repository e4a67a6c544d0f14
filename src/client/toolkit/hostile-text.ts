/**
 * Terminal control sequences an agent could put in its text, for tests of every place agent text reaches a
 * terminal (see `terminal-text.ts`).
 */

/** Each sequence by name; `a<sequence>b` must come out as `ab`. */
export const CONTROL_SEQUENCES: ReadonlyArray<[name: string, sequence: string]> = [
  ["OSC 0 window title (BEL)", "\u001b]0;pwned\u0007"],
  ["OSC 2 window title (ST)", "\u001b]2;pwned\u001b\\"],
  ["OSC 52 clipboard write", "\u001b]52;c;cm0gLXJmIH4=\u0007"],
  ["OSC 8 hyperlink", "\u001b]8;;https://evil.example/\u001b\\"],
  ["CSI cursor up", "\u001b[1A"],
  ["CSI erase line", "\u001b[2K"],
  ["CSI erase screen and home", "\u001b[2J\u001b[H"],
  ["CSI SGR colour", "\u001b[31;1m"],
  ["CSI private mode (alternate screen)", "\u001b[?1049h"],
  ["DCS string", "\u001bP1$qm\u001b\\"],
  ["APC string", "\u001b_payload\u001b\\"],
  ["PM string", "\u001b^payload\u001b\\"],
  ["SOS string", "\u001bXpayload\u001b\\"],
  ["ESC c (reset)", "\u001bc"],
  ["ESC 7 (save cursor)", "\u001b7"],
  ["ESC ( B (charset)", "\u001b(B"],
  ["C1 CSI", "\u009b2J"],
  ["C1 OSC", "\u009d0;pwned\u009c"],
  ["C1 DCS", "\u0090payload\u009c"],
  ["C1 NEL and others", "\u0085\u0084\u008d"],
  ["bare CR", "\r"],
  ["backspaces", "\b\b\b"],
  ["BEL, VT, FF, DEL", "\u0007\u000b\u000c\u007f"],
];

/** All of them in one string, between visible markers. */
export const HOSTILE_TEXT = CONTROL_SEQUENCES.map(([, sequence]) => sequence).join("");

/** The controls that must never reach the terminal from agent text: ESC, the C1 range, and C0 but LF and TAB. */
// eslint-disable-next-line no-control-regex
export const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
