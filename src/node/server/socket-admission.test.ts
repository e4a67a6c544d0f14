import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { test } from "node:test";
import { SocketAdmission } from "./socket-admission.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP server whose accepted sockets enter `admission`, and a way to open client sockets to it. */
async function harness(admission: SocketAdmission) {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    socket.on("error", () => {});
    accepted.push(socket);
    admission.accept(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const clients: Array<{ socket: Socket; closed: boolean }> = [];
  const open = async (localAddress = "127.0.0.1") => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    const client = { socket, closed: false };
    socket.on("error", () => {});
    socket.on("close", () => (client.closed = true));
    await once(socket, "connect");
    clients.push(client);
    while (accepted.length < clients.length) await sleep(5);
    return client;
  };
  const close = () => {
    for (const { socket } of clients) socket.destroy();
    server.close();
    admission.dispose();
  };
  return { open, accepted, close };
}

test("young sockets may pass a cap for their first second, never twice it; then the oldest go", async () => {
  const admission = new SocketAdmission({ maxUnauthenticatedSockets: 4, headersTimeoutMs: 10_000 });
  const { open, close } = await harness(admission);
  try {
    const first = [];
    for (let i = 0; i < 8; i++) first.push(await open());
    await sleep(50);
    assert.equal(first.filter((c) => c.closed).length, 0, "a burst of 8 against a cap of 4 is not cut at once");
    const ninth = await open();
    await sleep(50);
    assert.equal(first[0]!.closed, true, "past twice the cap the oldest goes whatever its age");
    assert.equal(ninth.closed, false);
    await sleep(1300);
    assert.equal(admission.size, 4, "once they had their second, the cap holds");
    assert.deepEqual(
      first.map((c) => c.closed),
      [true, true, true, true, true, false, false, false],
      "the oldest were closed",
    );
    assert.equal(ninth.closed, false);
  } finally {
    close();
  }
});

test("per address: only the busiest address pays; an authenticated socket leaves the ledger", async () => {
  const admission = new SocketAdmission({
    maxUnauthenticatedSockets: 6,
    maxUnauthenticatedSocketsPerAddress: 6,
    headersTimeoutMs: 10_000,
  });
  const { open, close, accepted } = await harness(admission);
  try {
    const quiet = [await open("127.0.0.2"), await open("127.0.0.2")];
    const trusted = await open("127.0.0.3");
    const server = accepted.at(-1)!;
    admission.authenticated(server.remoteAddress, server.remotePort);
    const flood = [];
    for (let i = 0; i < 10; i++) flood.push(await open("127.0.0.1"));
    await sleep(1300);
    assert.ok(
      quiet.every((c) => !c.closed),
      "the quiet address keeps its sockets",
    );
    assert.equal(trusted.closed, false, "an authenticated socket is never closed by the ledger");
    assert.equal(flood.filter((c) => !c.closed).length, 4, "the flooding address holds what is left of the cap");
  } finally {
    close();
  }
});

test("the cap per address holds only under pressure: one address may fill half the server cap", async () => {
  const admission = new SocketAdmission({
    maxUnauthenticatedSockets: 20,
    maxUnauthenticatedSocketsPerAddress: 4,
    headersTimeoutMs: 10_000,
  });
  assert.equal(admission.perAddressAbove, 10);
  const { open, close } = await harness(admission);
  try {
    // Ten clients behind one proxy connect at once: half the server cap, so nobody else is crowded out.
    const proxied = [];
    for (let i = 0; i < 10; i++) proxied.push(await open("127.0.0.1"));
    await sleep(1300);
    assert.equal(proxied.filter((c) => c.closed).length, 0, "all ten kept, past the per-address cap of 4");
    // Another address arrives: over half the server cap, the proxy's oldest make room (down to half in all).
    const other = [await open("127.0.0.2"), await open("127.0.0.2"), await open("127.0.0.2")];
    await sleep(700);
    assert.deepEqual(
      proxied.map((c) => c.closed),
      [true, true, true, false, false, false, false, false, false, false],
      "the three oldest of the busy address went",
    );
    assert.ok(
      other.every((c) => !c.closed),
      "the other address keeps its sockets",
    );
    assert.equal(admission.size, 10);
  } finally {
    close();
  }
});

test("one address alone is held by the server cap only; the cap per address comes back with another address", async () => {
  const admission = new SocketAdmission({
    maxUnauthenticatedSockets: 20,
    maxUnauthenticatedSocketsPerAddress: 4,
    headersTimeoutMs: 10_000,
  });
  const { open, close } = await harness(admission);
  try {
    // A backend opening a connection per user: 16 at once from one address, past half the server cap and past twice
    // the cap per address, with no other address to crowd out.
    const backend = [];
    for (let i = 0; i < 16; i++) backend.push(await open("127.0.0.1"));
    await sleep(1300);
    assert.equal(backend.filter((c) => c.closed).length, 0, "all 16 kept: only the server cap (20) bounds them");
    assert.equal(admission.size, 16);
    // Another address arrives: the cap per address holds again, and the busy address goes down to half in all at once
    // (it is past twice its cap).
    const other = [await open("127.0.0.2"), await open("127.0.0.2")];
    await sleep(100);
    assert.deepEqual(
      backend.map((c) => c.closed),
      [...Array<boolean>(8).fill(true), ...Array<boolean>(8).fill(false)],
      "the eight oldest of the busy address went",
    );
    assert.ok(
      other.every((c) => !c.closed),
      "the other address keeps its sockets",
    );
    assert.equal(admission.size, 10);
  } finally {
    close();
  }
});

test("an unauthenticated socket that says nothing is closed at the header deadline", async () => {
  const admission = new SocketAdmission({ headersTimeoutMs: 300 });
  const { open, close } = await harness(admission);
  try {
    const idle = await open();
    await sleep(900);
    assert.equal(idle.closed, true);
    assert.equal(admission.closedForDeadline, 1);
  } finally {
    close();
  }
});
