/**
 * The client's file system host: `fs/read_text_file` and `fs/write_text_file`, confined to each session's roots.
 *
 * Spec: https://agentclientprotocol.com/protocol/file-system — the client reads text files (including unsaved
 * editor buffers) with an optional 1-based `line` and a `limit` in lines; it MUST create a written file that does
 * not exist. Clients advertise this with `clientCapabilities.fs.readTextFile` / `writeTextFile`.
 */
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { ErrorCodes, RequestError } from "../jsonrpc/request-error.js";
import { silentLogger, type Logger } from "../jsonrpc/logger.js";
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse } from "../protocol/index.js";
import { confinePath, type RootsProvider } from "./path-confinement.js";

/** Unsaved editor buffers by absolute path: a map, or a function (undefined: no buffer, read the disk). */
export type FileOverlay = ReadonlyMap<string, string> | ((path: string) => string | undefined);

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
  /** Default: silent. */
  logger?: Logger;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Implements the `Client` methods `readTextFile` and `writeTextFile`. Use it as (part of) the client handler:
 * `{ ...handlers, readTextFile: (p) => fsHost.readTextFile(p), writeTextFile: (p) => fsHost.writeTextFile(p) }`.
 *
 * Errors (all `RequestError`s, so the agent gets them as is):
 * - -32602 invalid params: a relative path, a path outside the session's roots (`data.reason: "outside_roots"`,
 *   after `..` and symlinks are resolved), a directory, a negative `line`/`limit`, a file over `maxFileBytes`;
 * - -32002 resource not found: a missing file (`data.uri` is the path), or a session without roots;
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
    if ((line != null && (!Number.isInteger(line) || line < 0)) || (limit != null && (!Number.isInteger(limit) || limit < 0))) {
      throw RequestError.invalidParams({ line, limit }, "line and limit must be non-negative integers");
    }
    const target = await confinePath(params.path, this.options.roots(params.sessionId));
    let text = this.fromOverlay(target.requested) ?? this.fromOverlay(target.real);
    if (text === undefined) text = await this.readDisk(params.path, target.real);
    return { content: selectLines(text, line ?? 1, limit ?? undefined) };
  }

  /** Writes a text file (UTF-8), creating it and its missing parent directories inside the roots. */
  async writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse> {
    if (typeof params.content !== "string") throw RequestError.invalidParams({ path: params.path }, "content must be a string");
    const target = await confinePath(params.path, this.options.roots(params.sessionId));
    try {
      await mkdir(dirname(target.real), { recursive: true });
      const handle = await open(target.real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, 0o666);
      try {
        await handle.writeFile(params.content, "utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw ioError(error, params.path, "write");
    }
    this.logger.debug("fs host wrote a file", { path: target.real, bytes: Buffer.byteLength(params.content) });
    this.options.onWrite?.({ sessionId: params.sessionId, path: target.requested, realPath: target.real, content: params.content });
    return {};
  }

  private fromOverlay(path: string): string | undefined {
    const overlay = this.options.overlay;
    if (overlay === undefined) return undefined;
    return typeof overlay === "function" ? overlay(path) : overlay.get(path);
  }

  private async readDisk(path: string, real: string): Promise<string> {
    const max = this.options.maxFileBytes ?? 64 * 1024 * 1024;
    try {
      const handle = await open(real, constants.O_RDONLY | NOFOLLOW);
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw RequestError.invalidParams({ path, reason: "is_directory" }, `${path} is a directory, not a file`);
        if (stat.size > max) throw RequestError.invalidParams({ path, reason: "too_large", bytes: stat.size }, `${path} is ${stat.size} bytes, over the ${max} byte limit`);
        return await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw ioError(error, path, "read");
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

function ioError(error: unknown, path: string, what: "read" | "write"): RequestError {
  if (error instanceof RequestError) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT" && what === "read") return RequestError.resourceNotFound(path);
  if (code === "EISDIR") return RequestError.invalidParams({ path, reason: "is_directory" }, `${path} is a directory, not a file`);
  if (code === "ELOOP") return new RequestError(ErrorCodes.invalidParams, `Invalid params: ${path} changed into a symlink while being opened`, { path, reason: "symlink" });
  const detail = (error as Error)?.message ?? String(error);
  return RequestError.internalError({ path, code }, `could not ${what} ${path}: ${detail}`);
}
