/**
 * The file system host against hostile layouts: hard links to outside, FIFOs, sockets and devices, files that grow
 * past the cap, symlink loops, overlong names, NUL bytes, and a permission gate.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { ioError } from "./fs-errors.js";
import { FileSystemHost, type FileSystemHostOptions } from "./fs-host.js";

const posixOnly = { skip: process.platform === "win32" ? "POSIX file types" : false };
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-fs-hostile-")));
after(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, "root");
mkdirSync(root);
writeFileSync(join(base, "outside.txt"), "outside\n");
const sessionId = "s1";
const host = (options: Partial<FileSystemHostOptions> = {}) =>
  new FileSystemHost({ roots: (id) => (id === sessionId ? [root] : undefined), ...options });

const refused = (code: number, reason: string, pattern?: RegExp) => (error: unknown) =>
  error instanceof RequestError &&
  error.code === code &&
  (error.data as { reason?: string })?.reason === reason &&
  (pattern === undefined || pattern.test(error.message));

test(
  "a hard link inside the root to a file outside: writes refused by default (saying why and how to allow), reads served",
  posixOnly,
  async () => {
    const link = join(root, "linked.txt");
    linkSync(join(base, "outside.txt"), link);
    await assert.rejects(
      host().writeTextFile({ sessionId, path: link, content: "pwned" }),
      refused(-32602, "hard_linked", /hard link.*hardLinks/s),
    );
    assert.equal(readFileSync(join(base, "outside.txt"), "utf8"), "outside\n");
    assert.deepEqual(await host().readTextFile({ sessionId, path: link }), { content: "outside\n" });
    await assert.rejects(
      host({ hardLinks: "refuse" }).readTextFile({ sessionId, path: link }),
      refused(-32602, "hard_linked"),
    );
    await host({ hardLinks: "allow" }).writeTextFile({ sessionId, path: link, content: "allowed\n" });
    assert.equal(readFileSync(join(base, "outside.txt"), "utf8"), "allowed\n");
  },
);

test(
  "a FIFO is refused at once for reading and writing (nothing blocks), and later requests are served",
  posixOnly,
  async (t) => {
    const fifo = join(root, "pipe");
    try {
      execFileSync("mkfifo", [fifo]);
    } catch {
      return t.skip("mkfifo not available");
    }
    await assert.rejects(host().readTextFile({ sessionId, path: fifo }), refused(-32602, "not_a_regular_file", /FIFO/));
    await assert.rejects(
      host().writeTextFile({ sessionId, path: fifo, content: "x" }),
      refused(-32602, "not_a_regular_file", /FIFO/),
    );
    writeFileSync(join(root, "after.txt"), "after");
    assert.deepEqual(await host().readTextFile({ sessionId, path: join(root, "after.txt") }), { content: "after" });
  },
);

test("a socket and a device are refused as not regular files", posixOnly, async () => {
  const socketPath = join(root, "sock");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    await assert.rejects(host().readTextFile({ sessionId, path: socketPath }), refused(-32602, "not_a_regular_file"));
    await assert.rejects(
      host().writeTextFile({ sessionId, path: socketPath, content: "x" }),
      refused(-32602, "not_a_regular_file"),
    );
  } finally {
    server.close();
  }
  const devRoot = new FileSystemHost({ roots: () => ["/dev"] });
  await assert.rejects(
    devRoot.readTextFile({ sessionId, path: "/dev/zero" }),
    refused(-32602, "not_a_regular_file", /device/),
  );
  await assert.rejects(
    devRoot.writeTextFile({ sessionId, path: "/dev/null", content: "x" }),
    refused(-32602, "not_a_regular_file", /device/),
  );
});

test("the size cap holds for reading", async () => {
  const big = join(root, "big.txt");
  writeFileSync(big, "x".repeat(2048));
  await assert.rejects(
    host({ maxFileBytes: 1024 }).readTextFile({ sessionId, path: big }),
    refused(-32602, "too_large"),
  );
  assert.equal((await host({ maxFileBytes: 4096 }).readTextFile({ sessionId, path: big })).content.length, 2048);
});

test(
  "the size cap holds for a file growing while it is read: a writer process appends nonstop, no read returns more than the cap",
  posixOnly,
  async () => {
    const MAX = 256 * 1024;
    const growing = join(root, "growing.log");
    writeFileSync(growing, "");
    // Appends 16 KiB at a time, starting over from empty past 3 x MAX, so the file is often under the cap when opened.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"); const fd = fs.openSync(process.argv[1], "a"); const chunk = Buffer.alloc(16384, "g"); process.stdout.write("ready\\n"); for (;;) { if (fs.fstatSync(fd).size > ${3 * MAX}) fs.ftruncateSync(fd, 0); fs.writeSync(fd, chunk); }`,
        growing,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await once(writer.stdout!, "data");
    const capped = host({ maxFileBytes: MAX });
    const outcomes = { served: 0, tooLargeWhenOpened: 0, grewWhileRead: 0 };
    try {
      for (let i = 0; i < 5000 && outcomes.grewWhileRead < 5; i++) {
        try {
          const { content } = await capped.readTextFile({ sessionId, path: growing });
          assert.ok(content.length <= MAX, `a read returned ${content.length} characters, over the ${MAX} cap`);
          outcomes.served++;
        } catch (error) {
          assert.ok(refused(-32602, "too_large")(error), String(error));
          const { data, message } = error as RequestError;
          if (data !== undefined && "bytes" in (data as object)) outcomes.tooLargeWhenOpened++;
          else {
            assert.match(message, /grew past it while being read/);
            outcomes.grewWhileRead++;
          }
        }
      }
    } finally {
      writer.kill("SIGKILL");
      await once(writer, "exit");
    }
    assert.ok(
      outcomes.grewWhileRead > 0,
      `some reads met the file growing past the cap mid-read: ${JSON.stringify(outcomes)}`,
    );
    process.stderr.write(`# growing file: ${JSON.stringify(outcomes)}\n`);
  },
);

test(
  "the size cap holds for a file whose size says less than it holds (/proc reports 0 bytes): caught while reading",
  { skip: process.platform === "linux" ? false : "Linux /proc" },
  async () => {
    const proc = realpathSync("/proc/self");
    const procHost = new FileSystemHost({ roots: () => [proc], maxFileBytes: 64 });
    assert.equal(statSync(join(proc, "maps")).size, 0);
    await assert.rejects(
      procHost.readTextFile({ sessionId, path: join(proc, "maps") }),
      refused(-32602, "too_large", /grew past it while being read/),
    );
    assert.ok(
      (await new FileSystemHost({ roots: () => [proc] }).readTextFile({ sessionId, path: join(proc, "maps") })).content
        .length > 64,
      "uncapped, the same file reads in full",
    );
  },
);

test("symlink loops, overlong names and NUL bytes get -32602 with a reason, not -32603", posixOnly, async () => {
  symlinkSync(join(root, "loop-b"), join(root, "loop-a"));
  symlinkSync(join(root, "loop-a"), join(root, "loop-b"));
  await assert.rejects(
    host().readTextFile({ sessionId, path: join(root, "loop-a", "x.txt") }),
    refused(-32602, "symlink_loop"),
  );
  await assert.rejects(
    host().writeTextFile({ sessionId, path: join(root, "loop-a"), content: "x" }),
    refused(-32602, "symlink_loop"),
  );
  const long = join(root, "n".repeat(300));
  await assert.rejects(host().readTextFile({ sessionId, path: long }), refused(-32602, "name_too_long"));
  await assert.rejects(
    host().writeTextFile({ sessionId, path: join(long, "x.txt"), content: "x" }),
    refused(-32602, "name_too_long"),
  );
  const deep = join(root, ...Array.from({ length: 2100 }, () => "d"));
  await assert.rejects(host().writeTextFile({ sessionId, path: deep, content: "x" }), refused(-32602, "name_too_long"));
  await assert.rejects(host().readTextFile({ sessionId, path: `${root}/a\0b` }), refused(-32602, "nul_byte"));
  await assert.rejects(
    host().writeTextFile({ sessionId, path: `${root}/a\0b`, content: "x" }),
    refused(-32602, "nul_byte"),
  );
});

test("an unknown session is refused with a clear error that names it", async () => {
  await assert.rejects(
    host().readTextFile({ sessionId: "sess_other", path: join(root, "after.txt") }),
    (error: unknown) => error instanceof RequestError && error.code === -32002 && /sess_other/.test(error.message),
  );
});

test("the gate decides every access after confinement: a refusal is -32602 with the gate's reason, nothing written", async () => {
  const asked: string[] = [];
  const gated = host({
    gate: (access) => {
      asked.push(`${access.kind} ${access.kind === "terminal" ? access.cwd : access.path}`);
      return access.kind === "read" ? true : "writes are not allowed by --permissions deny-all";
    },
  });
  const file = join(root, "gated.txt");
  writeFileSync(file, "before");
  assert.deepEqual(await gated.readTextFile({ sessionId, path: file }), { content: "before" });
  await assert.rejects(
    gated.writeTextFile({ sessionId, path: file, content: "after" }),
    refused(-32602, "denied", /deny-all/),
  );
  await assert.rejects(
    gated.writeTextFile({ sessionId, path: join(root, "new-gated.txt"), content: "x" }),
    refused(-32602, "denied"),
  );
  await assert.rejects(
    gated.writeTextFile({ sessionId, path: join(base, "outside.txt"), content: "x" }),
    refused(-32602, "outside_roots"),
  );
  assert.equal(readFileSync(file, "utf8"), "before");
  assert.throws(() => statSync(join(root, "new-gated.txt")));
  assert.deepEqual(
    asked,
    [`read ${file}`, `write ${file}`, `write ${join(root, "new-gated.txt")}`],
    "the gate is not asked about paths confinement refuses",
  );
});

test(
  "a dangling final symlink is refused as one (dangling_symlink), not as a symlink that changed",
  posixOnly,
  async () => {
    const link = join(root, "dangling.txt");
    const target = join(root, "nowhere", "target.txt");
    symlinkSync(target, link);
    const dangling = /dangling\.txt is a symlink to nothing \(its target does not exist\)/;
    await assert.rejects(host().readTextFile({ sessionId, path: link }), refused(-32602, "dangling_symlink", dangling));
    await assert.rejects(
      host().writeTextFile({ sessionId, path: link, content: "x" }),
      refused(-32602, "dangling_symlink", dangling),
    );
    assert.throws(() => statSync(target), /ENOENT/, "nothing was created through it");
  },
);

test(
  "ELOOP from the open names its cause: a symlink gone again is no loop; a loop in the parent is",
  posixOnly,
  async () => {
    const eloop = Object.assign(new Error("ELOOP: too many symbolic links"), { code: "ELOOP" });
    // At the open a symlink was there (O_NOFOLLOW said ELOOP); now a regular file is back, and the parent resolves.
    const back = join(root, "swapped-back.txt");
    writeFileSync(back, "regular again\n");
    const swapped = await ioError(eloop, back, back, "read");
    assert.equal((swapped.data as { reason?: string }).reason, "symlink");
    assert.match(swapped.message, /was a symlink when it was opened \(it changed meanwhile\)/);
    assert.doesNotMatch(swapped.message, /loop/);
    // A symlink to an existing file where the check saw a file: swapped in.
    const swappedIn = join(root, "swapped-in.txt");
    symlinkSync(back, swappedIn);
    const changed = await ioError(eloop, swappedIn, swappedIn, "write");
    assert.match(changed.message, /changed into a symlink while being opened/);
    // A real loop in the parent stays a loop.
    symlinkSync(join(root, "ring-b"), join(root, "ring-a"));
    symlinkSync(join(root, "ring-a"), join(root, "ring-b"));
    const loop = await ioError(eloop, join(root, "ring-a", "f.txt"), join(root, "ring-a", "f.txt"), "read");
    assert.equal((loop.data as { reason?: string }).reason, "symlink_loop");
  },
);
