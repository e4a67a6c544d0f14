/**
 * What the person can do to a lane the page drives, through its `ClientLane` (the library's client): sessions
 * (new, load, list, resume, fork where advertised), prompts with attachments, cancel, mode and config options.
 * Failures are shown as notices with the agent's own error message.
 */
import type { ContentBlock } from "@acpkit/sdk";
import type { ClientLane } from "../model/client.js";
import type { Store } from "../model/store.js";

export interface Attachment {
  readonly name: string;
  readonly mimeType: string;
  readonly text?: string;
  readonly data?: string;
}

export class Actions {
  constructor(
    readonly client: ClientLane,
    private readonly store: Store,
    private readonly cwd: string,
  ) {}

  #agentCaps(): any {
    const lane = this.client.laneId === undefined ? undefined : this.store.lanes.get(this.client.laneId);
    return lane?.fold.initialize.result?.agentCapabilities ?? {};
  }

  capabilities(): { load: boolean; list: boolean; resume: boolean; fork: boolean; image: boolean; embedded: boolean } {
    const caps = this.#agentCaps();
    const session = caps.sessionCapabilities ?? {};
    return {
      load: caps.loadSession === true,
      list: session.list != null,
      resume: session.resume != null,
      fork: session.fork != null,
      image: caps.promptCapabilities?.image === true,
      embedded: caps.promptCapabilities?.embeddedContext === true,
    };
  }

  #run<T>(what: string, promise: Promise<T>): Promise<T> {
    return promise.catch((error: unknown) => {
      const e = error as { message?: string; data?: unknown };
      this.store.notify(
        "error",
        `${what} failed: ${e.message ?? String(error)}${e.data ? ` (${JSON.stringify(e.data)})` : ""}`,
      );
      throw error;
    });
  }

  #select(sessionId: string): void {
    this.store.select(this.client.laneId, sessionId);
  }

  async newSession(): Promise<void> {
    await this.client.initialized;
    const result = await this.#run("session/new", this.client.connection.newSession({ cwd: this.cwd, mcpServers: [] }));
    this.#select(result.sessionId);
  }

  async loadSession(sessionId: string, cwd = this.cwd): Promise<void> {
    this.#select(sessionId);
    await this.#run("session/load", this.client.connection.loadSession({ sessionId, cwd, mcpServers: [] }));
  }

  async resumeSession(sessionId: string, cwd = this.cwd): Promise<void> {
    this.#select(sessionId);
    await this.#run(
      "session/resume",
      this.client.connection.resumeSession({ sessionId, cwd, mcpServers: [] } as never),
    );
  }

  async forkSession(sessionId: string, cwd = this.cwd): Promise<void> {
    const result = await this.#run(
      "session/fork",
      this.client.connection.unstable_forkSession({ sessionId, cwd, mcpServers: [] } as never),
    );
    this.#select((result as { sessionId: string }).sessionId);
  }

  async listSessions(): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await this.#run(
        "session/list",
        this.client.connection.listSessions(cursor === undefined ? {} : ({ cursor } as never)),
      );
      all.push(...result.sessions);
      cursor = result.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return all;
  }

  async prompt(sessionId: string, text: string, attachments: readonly Attachment[]): Promise<void> {
    const caps = this.capabilities();
    const blocks: ContentBlock[] = [];
    if (text !== "") blocks.push({ type: "text", text });
    for (const file of attachments) {
      if (file.data !== undefined && caps.image && file.mimeType.startsWith("image/")) {
        blocks.push({ type: "image", mimeType: file.mimeType, data: file.data });
      } else if (file.text !== undefined && caps.embedded) {
        blocks.push({
          type: "resource",
          resource: {
            uri: `file:///${encodeURIComponent(file.name)}`,
            mimeType: file.mimeType || "text/plain",
            text: file.text,
          },
        });
      } else if (file.text !== undefined) {
        blocks.push({ type: "text", text: `\n--- ${file.name} ---\n${file.text}` });
      } else {
        this.store.notify("warning", `${file.name} was not sent: the agent takes no images, and it is not text`);
      }
    }
    await this.#run("session/prompt", this.client.connection.prompt({ sessionId, prompt: blocks }));
  }

  async cancel(sessionId: string): Promise<void> {
    await this.client.connection.cancel({ sessionId });
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.#run("session/set_mode", this.client.connection.setSessionMode({ sessionId, modeId }));
  }

  async setConfig(sessionId: string, configId: string, value: string | boolean): Promise<void> {
    const params =
      typeof value === "boolean"
        ? { sessionId, configId, type: "boolean" as const, value }
        : { sessionId, configId, value };
    await this.#run("session/set_config_option", this.client.connection.setSessionConfigOption(params as never));
  }
}
