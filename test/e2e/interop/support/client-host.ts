/**
 * What the test client does for the agent, whatever implementation and API it sits on: a real file system
 * (confined to the session's temp dir), a real terminal host, a permission policy the test sets, and a log of
 * every update and extension notification in arrival order.
 */
import { readFile, writeFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import type * as acp from "sdk-1.9";
import { TerminalHost } from "./terminal-host.js";

/** "allow"/"reject" pick that option; "wait-for-cancel" answers `cancelled` once the request is cancelled. */
export type PermissionPolicy = "allow" | "reject" | "wait-for-cancel";

type Waiter = { test: () => boolean; resolve: () => void };

export class ClientHost {
  readonly updates: acp.SessionNotification[] = [];
  readonly extNotifications: Array<{ method: string; params: unknown }> = [];
  readonly permissionRequests: acp.RequestPermissionRequest[] = [];
  readonly terminals = new TerminalHost();
  permissionPolicy: PermissionPolicy = "allow";
  /** Whether a permission handler saw its request's cancellation signal abort. */
  permissionSignalAborted = false;
  private waiters: Waiter[] = [];

  constructor(readonly root: string) {}

  sessionUpdate(params: acp.SessionNotification): void {
    this.updates.push(params);
    this.wake();
  }

  async requestPermission(
    params: acp.RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<acp.RequestPermissionResponse> {
    this.permissionRequests.push(params);
    this.wake();
    if (this.permissionPolicy === "wait-for-cancel") {
      if (!signal) throw new Error("this client API gives permission handlers no cancellation signal");
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      this.permissionSignalAborted = true;
      // Waiters look again now: nothing else may come to wake them (it made the failover test flaky).
      this.wake();
      return { outcome: { outcome: "cancelled" } };
    }
    const kind = this.permissionPolicy === "allow" ? "allow_once" : "reject_once";
    const option = params.options.find((o) => o.kind === kind);
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  }

  async readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const text = await readFile(this.confine(params.path), "utf8");
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split(/(?<=\n)/);
    const start = Math.max(0, (params.line ?? 1) - 1);
    const end = params.limit == null ? lines.length : start + params.limit;
    return { content: lines.slice(start, end).join("") };
  }

  async writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    await writeFile(this.confine(params.path), params.content, "utf8");
    return {};
  }

  extMethod(method: string, params: Record<string, unknown>): Record<string, unknown> {
    if (method === "_acme/client_ping") return { pong: "client", echo: params };
    throw Object.assign(new Error(`no such method ${method}`), { code: -32601 });
  }

  extNotification(method: string, params: unknown): void {
    this.extNotifications.push({ method, params });
    this.wake();
  }

  /** Resolves once `test()` holds (checked now and after every update, request and notification). */
  until(test: () => boolean, ms = 5000, what = "a condition"): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { test, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      this.waiters.push(waiter);
    });
  }

  /** The texts of the agent_message_chunk updates from index `from` on. */
  texts(from = 0, sessionId?: string): string[] {
    return this.updates
      .slice(from)
      .filter((n) => sessionId === undefined || n.sessionId === sessionId)
      .flatMap((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? [n.update.content.text]
          : [],
      );
  }

  dispose(): void {
    this.terminals.dispose();
    this.waiters = [];
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.test());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }

  /** The agent may only touch files under the session's directory. */
  private confine(path: string): string {
    const rel = relative(this.root, path);
    if (!isAbsolute(path) || rel.startsWith("..") || isAbsolute(rel))
      throw new Error(`path outside the workspace: ${path}`);
    return path;
  }
}
