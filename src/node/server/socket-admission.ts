/**
 * What a server spends on sockets that have not authenticated: a count per server and per remote address, and a
 * short deadline for their request headers. A socket is unauthenticated from its accept until a request on it
 * passes the access checks (Host, Origin and the token; without a token, Host and Origin) or its WebSocket upgrade
 * is accepted; then it leaves this ledger for good.
 *
 * - An unauthenticated socket with no request in progress is closed `headersTimeoutMs` after its accept or its last
 *   answer (a TLS handshake or headers that never complete, an idle socket, a slowloris drip).
 * - Over a cap (`maxUnauthenticatedSockets` in all, `maxUnauthenticatedSocketsPerAddress` from one address), the
 *   oldest unauthenticated socket of that address (or of the address holding the most) is closed to make room, once
 *   it has had `minAgeMs` (1 s) to send its headers: a newcomer is never refused, so a client with the token and the
 *   health check get in while strangers fill the cap, strangers push out their own first, and a burst of clients
 *   connecting at once (or a proxy's) is not cut before it could speak. Sockets younger than that may pass a cap
 *   for that second, never twice it: at twice a cap the oldest goes whatever its age. So at most twice the caps are
 *   ever held.
 * - The cap per address guards the other addresses' share, so it holds only while the server is under pressure and
 *   another address is there: while more than half the server cap is unauthenticated, from more than one address.
 *   With room to spare, or with nobody else to crowd out, the clients behind one address (a proxy, a load balancer,
 *   a NAT, a backend opening a connection per user) may all connect at once; the server cap still bounds them.
 * - While the event loop lags (the server is too busy to read what its sockets hold, so a client's headers may sit
 *   unread), ages stop counting: nothing is closed for its age or the deadline, only for twice a cap.
 * - The server cap defaults to at most an eighth of the process's descriptor limit (twice that is a quarter), so
 *   authenticated clients and the agents' pipes always find descriptors.
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";

/** Options of the socket ledger (`listenAcp` takes them). */
export interface SocketAdmissionOptions {
  /** Sockets not yet authenticated, in total (held up to twice this for a second). Default 256, or an eighth of the descriptor limit if less. */
  readonly maxUnauthenticatedSockets?: number;
  /**
   * Sockets not yet authenticated from one remote address, enforced while more than half of
   * `maxUnauthenticatedSockets` are unauthenticated and another address holds some of them. Default 64 (at most the
   * total).
   */
  readonly maxUnauthenticatedSocketsPerAddress?: number;
  /** How long an unauthenticated socket has to send complete request headers. Default 10000 ms. */
  readonly headersTimeoutMs?: number;
}

/** The defaults, for documentation and tests. */
export const DEFAULT_MAX_UNAUTHENTICATED_SOCKETS = 256;
export const DEFAULT_MAX_UNAUTHENTICATED_SOCKETS_PER_ADDRESS = 64;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

interface Entry {
  readonly socket: Socket;
  readonly address: string;
  /** When the socket was accepted or last answered. */
  since: number;
  /** When it was accepted. */
  readonly born: number;
  /** Requests in progress on it (HTTP/2 may have several). */
  busy: number;
}

/** Reads the soft limit on open descriptors (Linux `/proc/self/limits`); undefined elsewhere. */
export function descriptorLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive safe integer, got ${String(value)}`);
  return value;
}

/** The ledger of unauthenticated sockets of one listening server. */
export class SocketAdmission {
  readonly maxSockets: number;
  readonly maxPerAddress: number;
  /**
   * The cap per address holds while more than this many sockets are unauthenticated (half the server cap), from more
   * than one address.
   */
  readonly perAddressAbove: number;
  readonly headersTimeoutMs: number;
  /** By `address|port` (what a request's socket, a TLS socket and an HTTP/2 session all report alike). */
  readonly #entries = new Map<string, Entry>();
  readonly #perAddress = new Map<string, number>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #sweepEveryMs = 250;
  #lastSweep = 0;
  /** Time the event loop spent late since the sockets were accepted counts as nobody's: ages are measured without it. */
  #lagged = 0;
  /** Sockets closed for the deadline or a cap (for logs and tests). */
  closedForDeadline = 0;
  closedForCap = 0;

  constructor(options: SocketAdmissionOptions = {}) {
    const limit = descriptorLimit();
    const fromLimit = limit === undefined ? Infinity : Math.max(16, Math.floor(limit / 8));
    this.maxSockets = positive(
      "maxUnauthenticatedSockets",
      options.maxUnauthenticatedSockets ?? Math.min(DEFAULT_MAX_UNAUTHENTICATED_SOCKETS, fromLimit),
    );
    this.maxPerAddress = Math.min(
      this.maxSockets,
      positive(
        "maxUnauthenticatedSocketsPerAddress",
        options.maxUnauthenticatedSocketsPerAddress ?? DEFAULT_MAX_UNAUTHENTICATED_SOCKETS_PER_ADDRESS,
      ),
    );
    this.perAddressAbove = Math.floor(this.maxSockets / 2);
    this.headersTimeoutMs = positive("headersTimeoutMs", options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS);
    this.minAgeMs = Math.min(1000, Math.floor(this.headersTimeoutMs / 2));
  }

  /** How long a socket has to speak before a cap may close it. */
  readonly minAgeMs: number;

  /** Unauthenticated sockets now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Enters a newly accepted socket, making room under the caps first. */
  accept(socket: Socket): void {
    const address = normalizeAddress(socket.remoteAddress);
    const key = keyOf(socket.remoteAddress, socket.remotePort);
    if (key === undefined) return;
    this.#entries.set(key, { socket, address, since: this.#clock(), born: this.#clock(), busy: 0 });
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    socket.once("close", () => this.#forget(key, socket));
    this.#enforceCaps(address);
    // A newcomer from another address brings the cap per address back for the busiest one (see the file's comment).
    const busiest = this.#perAddress.size > 1 ? this.#busiestAddress() : undefined;
    if (busiest !== undefined && busiest !== address) this.#enforceCaps(busiest);
    if (this.#sweeper === undefined) {
      this.#sweepEveryMs = Math.max(50, Math.min(250, this.minAgeMs / 2));
      this.#lastSweep = Date.now();
      this.#sweeper = setInterval(() => this.#sweep(), this.#sweepEveryMs);
      this.#sweeper.unref();
    }
  }

  /** Closes the oldest sockets (of `address`, then of the busiest address) while the caps are passed. */
  #enforceCaps(address: string | undefined): void {
    const now = this.#clock();
    const old = (entry: Entry) => now - entry.born >= this.minAgeMs;
    if (address !== undefined) {
      while (
        (this.#perAddress.get(address) ?? 0) > this.maxPerAddress &&
        this.#entries.size > this.perAddressAbove &&
        this.#perAddress.size > 1
      ) {
        const hard = (this.#perAddress.get(address) ?? 0) > 2 * this.maxPerAddress;
        if (!this.#evict(address, hard ? () => true : old)) break;
      }
    }
    while (this.#entries.size > this.maxSockets) {
      const hard = this.#entries.size > 2 * this.maxSockets;
      // Only the address holding the most pays: strangers push out their own, never a quieter client's.
      if (!this.#evict(this.#busiestAddress(), hard ? () => true : old)) break;
    }
  }

  /** A request began on the socket at `address:port`: its deadline waits until it is answered. */
  requestStarted(remoteAddress: string | undefined, remotePort: number | undefined): void {
    const entry = this.#entry(remoteAddress, remotePort);
    if (entry) entry.busy++;
  }

  /** A request on that socket was answered: its deadline starts again. */
  requestEnded(remoteAddress: string | undefined, remotePort: number | undefined): void {
    const entry = this.#entry(remoteAddress, remotePort);
    if (!entry) return;
    entry.busy = Math.max(0, entry.busy - 1);
    entry.since = this.#clock();
  }

  /** The socket passed the access checks: it leaves the ledger. */
  authenticated(remoteAddress: string | undefined, remotePort: number | undefined): void {
    const key = keyOf(remoteAddress, remotePort);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (entry) this.#forget(key!, entry.socket);
  }

  /** Whether the socket at `address:port` is still unauthenticated. */
  isUnauthenticated(remoteAddress: string | undefined, remotePort: number | undefined): boolean {
    return this.#entry(remoteAddress, remotePort) !== undefined;
  }

  /** Stops the deadline timer (the server closed). */
  dispose(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #entry(remoteAddress: string | undefined, remotePort: number | undefined): Entry | undefined {
    const key = keyOf(remoteAddress, remotePort);
    return key === undefined ? undefined : this.#entries.get(key);
  }

  #forget(key: string, socket: Socket): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.socket !== socket) return;
    this.#entries.delete(key);
    const count = (this.#perAddress.get(entry.address) ?? 1) - 1;
    if (count <= 0) this.#perAddress.delete(entry.address);
    else this.#perAddress.set(entry.address, count);
  }

  /**
   * Closes the oldest unauthenticated socket of `address` (any address when undefined) that `may` be closed; false
   * when there is none. Entries are kept in accept order.
   */
  #evict(address: string | undefined, may: (entry: Entry) => boolean): boolean {
    for (const [key, entry] of this.#entries) {
      if (address !== undefined && entry.address !== address) continue;
      if (!may(entry)) continue;
      this.#forget(key, entry.socket);
      this.closedForCap++;
      entry.socket.destroy();
      return true;
    }
    return false;
  }

  #busiestAddress(): string | undefined {
    let busiest: string | undefined;
    let most = 0;
    for (const [address, count] of this.#perAddress) {
      if (count > most) {
        most = count;
        busiest = address;
      }
    }
    return busiest;
  }

  /** Now, less the time the event loop lagged: the clock ages and deadlines are measured on. */
  #clock(): number {
    return Date.now() - this.#lagged;
  }

  #sweep(): void {
    // A sweep that came late measures the lag: that time does not age anyone.
    const late = Date.now() - this.#lastSweep - this.#sweepEveryMs;
    this.#lastSweep = Date.now();
    if (late > 50) this.#lagged += late;
    const deadline = this.#clock() - this.headersTimeoutMs;
    for (const [key, entry] of this.#entries) {
      if (entry.busy > 0 || entry.since > deadline) continue;
      this.#forget(key, entry.socket);
      this.closedForDeadline++;
      entry.socket.destroy();
    }
    // Sockets that passed a cap while young are held to it once they have had their second.
    for (const address of [...this.#perAddress.keys()]) this.#enforceCaps(address);
    this.#enforceCaps(undefined);
    if (this.#entries.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}

function normalizeAddress(address: string | undefined): string {
  const lower = (address ?? "").toLowerCase();
  return lower.startsWith("::ffff:") ? lower.slice(7) : lower;
}

function keyOf(remoteAddress: string | undefined, remotePort: number | undefined): string | undefined {
  if (remoteAddress === undefined || remotePort === undefined) return undefined;
  return `${normalizeAddress(remoteAddress)}|${remotePort}`;
}
