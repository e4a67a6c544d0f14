/**
 * `node/store/`: the embedded on-disk session store (`FileSessionStore`: an append-only, checksummed log per session)
 * and the per-user data directory it lives in.
 *
 * Safety contract: an accepted update is never lost and never blocks the history it belongs to; recovery drops at
 * most one torn record at the tail, and keeps and reports everything else; no symlink is followed, only regular
 * files are touched (tests: file-session-store*.test.ts, data-dir.test.ts).
 */
export { FileSessionStore, type FileSessionStoreOptions } from "./file-session-store.js";
export { userDataDir, DATA_DIR_ENV } from "./data-dir.js";
