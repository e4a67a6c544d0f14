/**
 * The client's file system host: `fs/read_text_file` and `fs/write_text_file`, confined to each session's roots.
 *
 * Spec: https://agentclientprotocol.com/protocol/file-system — the client reads text files (including unsaved
 * editor buffers) with an optional 1-based `line` and a `limit` in lines; it MUST create a written file that does
 * not exist. Clients advertise this with `clientCapabilities.fs.readTextFile` / `writeTextFile`.
 *
 * Safety contract (tests: fs-host.test.ts, fs-host-hostile.test.ts, fs-host-race.test.ts):
 * - Only regular files inside the session's roots are read or written, checked on the descriptor actually opened
 *   (see `confined-open.ts`): `..`, symlinks out, a directory swapped for a symlink mid-request, FIFOs, sockets and
 *   devices are refused, never followed or blocked on; a new file is created inside a verified parent descriptor.
 *   Exact on Linux; elsewhere the swap race is narrowed, not closed (see `confined-open.ts`).
 * - A file with several hard links (one of them may lie outside the roots) is not written unless `hardLinks` says
 *   so; `maxFileBytes` caps what is read, even for a file growing while it is read.
 * - The `gate` (e.g. `brokerGate` from `@acpkit/sdk/client-toolkit`, the client's permission policy) decides each
 *   access that passed confinement.
 */
import { RequestError } from "../../jsonrpc/request-error.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { HostAccess, HostGate } from "../../client/toolkit/host-gate.js";
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from "../../protocol/index.js";
import { createNew, openExisting, type ConfinedFile } from "./confined-open.js";
import { denied, hardLinked, ioError, tooLarge, unknownSession } from "./fs-errors.js";
import { confinePath, type ConfinedPath, type RootsProvider } from "./path-confinement.js";

/** Unsaved editor buffers by absolute path: a map, or a function (undefined: no buffer, read the disk). */
export type FileOverlay = ReadonlyMap<string, string> | ((path: string) => string | undefined);

/** What the host does with files that have several hard links. */
export type HardLinkPolicy = "refuse-writes" | "refuse" | "allow";

/** Options of `FileSystemHost`. */
export interface FileSystemHostOptions {
  /** The roots of a session (its `cwd` and `additionalDirectories`); undefined for an unknown session. */
  roots: RootsProvider;
  /** Unsaved editor buffers, read instead of the disk. Looked up by the requested and by the real path. */
  overlay?: FileOverlay;
  /** Called after a file was written (e.g. to refresh an open editor buffer). */
  onWrite?: (event: { sessionId: string; path: string; realPath: string; content: string }) => void;
  /** Files larger than this are refused. Default 64 MiB. */
  maxFileBytes?: number;
  /**
   * Files with more than one hard link: `"refuse-writes"` (default: read them, never write them, since writing
   * would change the file under its other names too), `"refuse"` (neither), `"allow"` (both).
   */
  hardLinks?: HardLinkPolicy;
  /**
   * Decides each access inside the roots: true serves it, false or a reason refuses it (-32602 `denied`). Default:
   * serve.
   */
  gate?: HostGate;
  /** Default: silent. */
  logger?: Logger;
}

/**
 * Implements the `Client` methods `readTextFile` and `writeTextFile`. Use it as (part of) the client handler:
 * `{ ...handlers, readTextFile: (p) => fsHost.readTextFile(p), writeTextFile: (p) => fsHost.writeTextFile(p) }`.
 *
 * Errors (all `RequestError`s, so the agent gets them as is; `data.reason` says which):
 * - -32602 invalid params: a relative path (`relative_path`), a NUL byte (`nul_byte`), a path outside the session's
 *   roots (`outside_roots`, after `..` and symlinks are resolved, or because it changed while being opened), a symlink
 *   loop (`symlink_loop`), a name too long (`name_too_long`), a directory (`is_directory`), a FIFO, socket or device
 *   (`not_a_regular_file`), a multiply-linked file (`hard_linked`), a file over `maxFileBytes` (`too_large`), a
 *   refusal by the gate (`denied`), a negative `line`/`limit`;
 * - -32002 resource not found: a missing file (`data.uri` is the path), or an unknown session;
 * - -32603 internal error: any other I/O failure (permission denied, ...), with the system's message.
 */
export class FileSystemHost {
  private readonly options: FileSystemHostOptions;
  private readonly logger: Logger;

  constructor(options: FileSystemHostOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Reads a text file (UTF-8) or its overlay buffer. `line` (1-based; 0 or absent: from the start) and `limit`
   * (a number of lines; absent: to the end) select whole lines, line breaks included.
   */
  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const { line, limit } = params;
    if (
      (line != null && (!Number.isInteger(line) || line < 0)) ||
      (limit != null && (!Number.isInteger(limit) || limit < 0))
    ) {
      throw RequestError.invalidParams({ line, limit }, "line and limit must be non-negative integers");
    }
    const target = await this.confine(params.sessionId, params.path);
    await this.authorize({ kind: "read", sessionId: params.sessionId, path: target.requested }, "read");
    let text = this.fromOverlay(target.requested) ?? this.fromOverlay(target.real);
    if (text === undefined) text = await this.readDisk(params.path, target);
    return { content: selectLines(text, line ?? 1, limit ?? undefined) };
  }

  /** Writes a text file (UTF-8), creating it and its missing parent directories inside the roots. */
  async writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse> {
    if (typeof params.content !== "string")
      throw RequestError.invalidParams({ path: params.path }, "content must be a string");
    const target = await this.confine(params.sessionId, params.path);
    await this.authorize({ kind: "write", sessionId: params.sessionId, path: target.requested }, "write");
    const file = await this.openForWrite(params.path, target);
    let written: string;
    try {
      if (file.stats.nlink > 1 && (this.options.hardLinks ?? "refuse-writes") !== "allow")
        throw hardLinked(params.path, file.stats.nlink, "write");
      await file.handle.truncate(0);
      await file.handle.writeFile(params.content, "utf8");
      written = file.real;
    } catch (error) {
      throw await ioError(error, params.path, target.real, "write");
    } finally {
      await file.handle.close();
    }
    this.logger.debug("fs host wrote a file", { path: written, bytes: Buffer.byteLength(params.content) });
    this.options.onWrite?.({
      sessionId: params.sessionId,
      path: target.requested,
      realPath: written,
      content: params.content,
    });
    return {};
  }

  private async confine(sessionId: string, path: string): Promise<ConfinedPath> {
    const roots = this.options.roots(sessionId);
    if (roots === undefined || roots.length === 0) throw unknownSession(sessionId, path);
    return confinePath(path, roots);
  }

  private async authorize(access: HostAccess, what: string): Promise<void> {
    if (this.options.gate === undefined) return;
    const verdict = await this.options.gate(access);
    if (verdict === true) return;
    const path = access.kind === "terminal" ? access.cwd : access.path;
    throw denied(path, what, typeof verdict === "string" ? verdict : "the client's permission policy refused it");
  }

  /** Opens the target for writing: the existing file (never truncated before it is verified), or a new one. */
  private async openForWrite(path: string, target: ConfinedPath): Promise<ConfinedFile> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await openExisting(target.real, [target.root], "write");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw await ioError(error, path, target.real, "write");
      }
      try {
        return await createNew(target.real, [target.root]);
      } catch (error) {
        // Created by someone else between the two opens: open it as an existing file (a few times at most).
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 3)
          throw await ioError(error, path, target.real, "write");
      }
    }
  }

  private fromOverlay(path: string): string | undefined {
    const overlay = this.options.overlay;
    if (overlay === undefined) return undefined;
    return typeof overlay === "function" ? overlay(path) : overlay.get(path);
  }

  private async readDisk(path: string, target: ConfinedPath): Promise<string> {
    const max = this.options.maxFileBytes ?? 64 * 1024 * 1024;
    let file: ConfinedFile;
    try {
      file = await openExisting(target.real, [target.root], "read");
    } catch (error) {
      throw await ioError(error, path, target.real, "read");
    }
    try {
      if (file.stats.nlink > 1 && this.options.hardLinks === "refuse") throw hardLinked(path, file.stats.nlink, "read");
      if (file.stats.size > max) throw tooLarge(path, file.stats.size, max);
      // Read at most max + 1 bytes: a file that grew since fstat is still caught.
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.allocUnsafe(Math.min(max + 1 - total, Math.max(file.stats.size + 1 - total, 64 * 1024)));
        const { bytesRead } = await file.handle.read(chunk, 0, chunk.length, total);
        if (bytesRead === 0) return Buffer.concat(chunks, total).toString("utf8");
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
        if (total > max) throw tooLarge(path, undefined, max);
      }
    } catch (error) {
      throw await ioError(error, path, target.real, "read");
    } finally {
      await file.handle.close();
    }
  }
}

/** Lines `line` (1-based) to `line + limit - 1` of `text`, each with its line break. */
export function selectLines(text: string, line: number, limit: number | undefined): string {
  const start = Math.max(1, line);
  if (start === 1 && limit === undefined) return text;
  if (limit === 0) return "";
  let from = 0;
  for (let n = 1; n < start; n++) {
    const next = text.indexOf("\n", from);
    if (next === -1) return "";
    from = next + 1;
  }
  if (limit === undefined) return text.slice(from);
  let to = from;
  for (let n = 0; n < limit; n++) {
    const next = text.indexOf("\n", to);
    if (next === -1) return text.slice(from);
    to = next + 1;
  }
  return text.slice(from, to);
}
