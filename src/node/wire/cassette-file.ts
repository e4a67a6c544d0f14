/**
 * Cassette files: a `LineSink` for a `CassetteRecorder` that writes to a file synchronously, so the file is complete
 * up to the last frame even if the process is killed. Lines can be batched (`batch: true`): they are then written in
 * one system call at each `flush()` (and at the latest on the next turn of the event loop), for high-rate recording.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { LineSink } from "../../wire/recorder.js";

/** An open cassette file. */
export interface CassetteFile {
  readonly sink: LineSink;
  /** Writes batched lines now. */
  flush(): void;
  /** Flushes and closes the file. Idempotent. */
  close(): void;
}

/** Opens (truncates) `path`. Throws the file system's error when it cannot be created. */
export function openCassetteFile(path: string, options: { batch?: boolean } = {}): CassetteFile {
  let fd: number | undefined = openSync(path, "w");
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (fd === undefined || pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    writeSync(fd, text);
  };
  return {
    sink(line) {
      if (fd === undefined) return;
      if (!options.batch) {
        writeSync(fd, `${line}\n`);
        return;
      }
      pending.push(`${line}\n`);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
    close() {
      flush();
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}
