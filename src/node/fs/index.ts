/**
 * `node/fs/`: the client's file system host (`fs/read_text_file`, `fs/write_text_file`) and the path confinement it
 * shares with the terminal host.
 *
 * Safety contract: only regular files inside the session's roots, checked on the descriptor actually opened (no
 * `..`, no symlink, no swapped directory, no hard link to outside, no FIFO). Tests: fs-host.test.ts,
 * fs-host-hostile.test.ts, fs-host-race.test.ts, path-confinement.test.ts.
 */
export {
  confinePath,
  isWithin,
  realpathLongestExisting,
  OUTSIDE_ROOTS_CODE,
  type ConfinedPath,
  type RootsProvider,
} from "./path-confinement.js";
export {
  FileSystemHost,
  selectLines,
  type FileOverlay,
  type FileSystemHostOptions,
  type HardLinkPolicy,
} from "./fs-host.js";
