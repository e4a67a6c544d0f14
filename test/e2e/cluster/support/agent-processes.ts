/**
 * The agent processes of a cluster's nodes, read from the process list (`/proc`, Linux): each agent `acp serve`
 * starts carries its connection's label in its environment (`ACPKIT_CONNECTION_LABEL`, the connection id's first 8
 * characters). A sampler reads the list every `everyMs` while a test runs and records every sample in which one
 * connection had two live agents (a zombie is not live; a labelled process whose parent carries the same label is
 * the agent's own child, not a second agent). Agents orphaned by a node's death are found too (the whole list is read,
 * not only the nodes' children). Nothing here runs on its own.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The environment variable the nodes label their agents with (src/node/server/stdio-agent-connector.ts). */
export const LABEL_ENV = "ACPKIT_CONNECTION_LABEL";

/** A live labelled process. */
export interface AgentProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly label: string;
}

/** `/proc/<pid>/stat`'s parent, state and start time (undefined once the process is gone). */
function readStat(pid: string): { ppid: number; state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses, so read after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), state: fields[0]!, start: fields[19]! };
}

function readLabel(pid: string): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return undefined;
  }
  const entry = environ.split("\0").find((item) => item.startsWith(`${LABEL_ENV}=`));
  return entry?.slice(LABEL_ENV.length + 1);
}

/** Reads the process list: every live labelled process that is not the child of one with its label. */
export class AgentProcessList {
  /** Labels by `pid:start` (null: not an agent), so that each process's environment is read once. */
  readonly #labels = new Map<string, string | null>();

  constructor(private readonly nodePids: () => readonly number[]) {}

  read(): AgentProcess[] {
    const nodes = new Set(this.nodePids());
    const live: AgentProcess[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const stat = readStat(name);
      if (stat === undefined || stat.state === "Z" || stat.state === "X") continue;
      const key = `${name}:${stat.start}`;
      let label = this.#labels.get(key);
      if (label === undefined) {
        label = readLabel(name) ?? null;
        // A node's child may not have exec'd yet (its environment is still the node's): read it again next time.
        if (label !== null || !nodes.has(stat.ppid)) this.#labels.set(key, label);
      }
      if (label !== null) live.push({ pid: Number(name), ppid: stat.ppid, label });
    }
    const labelOf = new Map(live.map((agent) => [agent.pid, agent.label]));
    return live.filter((agent) => labelOf.get(agent.ppid) !== agent.label);
  }
}

/** Samples the process list until `stop`: two agents of one connection in one sample is a violation. */
export class AgentSampler {
  readonly list: AgentProcessList;
  samples = 0;
  /** The most agents seen in one sample. */
  most = 0;
  /** Every label seen. */
  readonly labels = new Set<string>();
  /** The samples where a connection had two live agents, described (the first 20). */
  readonly doubled: string[] = [];
  #running = true;
  readonly #loop: Promise<void>;

  constructor(
    private readonly nodes: () => readonly { name: string; pid: number | undefined }[],
    everyMs: number,
  ) {
    this.list = new AgentProcessList(() => this.#pids());
    this.#loop = (async () => {
      while (this.#running) {
        this.sample();
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    })();
  }

  #pids(): number[] {
    return this.nodes().flatMap((node) => (node.pid === undefined ? [] : [node.pid]));
  }

  /** Takes one sample now (also called right before a node is killed). */
  sample(): AgentProcess[] {
    const agents = this.list.read();
    this.samples++;
    this.most = Math.max(this.most, agents.length);
    const byLabel = new Map<string, AgentProcess[]>();
    for (const agent of agents) {
      this.labels.add(agent.label);
      byLabel.set(agent.label, [...(byLabel.get(agent.label) ?? []), agent]);
    }
    const where = (ppid: number) =>
      this.nodes().find((node) => node.pid === ppid)?.name ?? `no node (parent pid ${ppid})`;
    for (const [label, same] of byLabel)
      if (same.length > 1 && this.doubled.length < 20)
        this.doubled.push(
          `${new Date().toISOString()} connection ${label}: ` +
            same.map((agent) => `pid ${agent.pid} on ${where(agent.ppid)}`).join(", "),
        );
    return agents;
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}
