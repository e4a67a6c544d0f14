/**
 * Which implementation a fixture or test client runs on: acpkit (this package, `dist/src/entries/index.js`) or the
 * official SDK (`sdk-1.9` = @agentclientprotocol/sdk 1.9.0 for the 1.x classes, `@agentclientprotocol/sdk` 2.4.0
 * for the 2.x app API). Everything is typed with the official SDK's types: acpkit is loaded in their place,
 * which is the drop-in claim (same code, other import).
 */
export type Impl = "acpkit" | "official";

/** The 1.x class API module (AgentSideConnection, ClientSideConnection, ndJsonStream, ...). */
export type ClassesModule = typeof import("sdk-1.9");
/** The 2.x app API module (agent(), client(), methods, ...). */
export type AppModule = typeof import("@agentclientprotocol/sdk");

/**
 * acpkit's entry point, from any file compiled under dist/test/e2e (kept out of tsc's resolution on purpose).
 * ACPKIT_ENTRY (a path or file URL) loads it from elsewhere, e.g. a packed build; fixtures inherit it.
 */
const ACPKIT_ENTRY = process.env.ACPKIT_ENTRY
  ? new URL(process.env.ACPKIT_ENTRY, `file://${process.cwd()}/`).href
  : new URL("../../../../src/entries/index.js", import.meta.url).href;

export function parseImpl(value: string | undefined): Impl | undefined {
  return value === "acpkit" || value === "official" ? value : undefined;
}

/** The implementation named by `--impl=<x>` / `--impl <x>` on the command line, if any. */
export function implFromArgv(argv: readonly string[] = process.argv): Impl | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--impl=")) return parseImpl(arg.slice("--impl=".length));
    if (arg === "--impl") return parseImpl(argv[i + 1]);
  }
  return undefined;
}

async function importAcpkit(): Promise<unknown> {
  return import(ACPKIT_ENTRY);
}

export async function loadClasses(impl: Impl): Promise<ClassesModule> {
  if (impl === "official") return import("sdk-1.9");
  return (await importAcpkit()) as ClassesModule;
}

/** The protocol v2 (draft) app API module (`experimental/v2`). */
export type V2Module = typeof import("@agentclientprotocol/sdk/experimental/v2");

/** acpkit's `experimental/v2` entry, beside the root entry (ACPKIT_ENTRY included). */
const ACPKIT_V2_ENTRY = new URL("experimental/v2.js", ACPKIT_ENTRY).href;

export async function loadV2(impl: Impl): Promise<V2Module> {
  if (impl === "official") return import("@agentclientprotocol/sdk/experimental/v2");
  return (await import(ACPKIT_V2_ENTRY)) as V2Module;
}

export async function loadApp(impl: Impl): Promise<AppModule> {
  if (impl === "official") return import("@agentclientprotocol/sdk");
  return (await importAcpkit()) as AppModule;
}

/** Whether acpkit's entry point can be loaded yet (src/entries/index.ts is being assembled). */
export async function acpkitAvailable(): Promise<string | undefined> {
  try {
    await importAcpkit();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** An object's `tap(listener)` (acpkit's extra), when it has one. */
export type TapEvent = { direction: "in" | "out"; time: number; message?: unknown; problem?: unknown };
export type Tappable = { tap(listener: (event: TapEvent) => void): () => void };

export function tapOf(value: unknown): Tappable["tap"] | undefined {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return undefined;
  const tap = (value as Partial<Tappable>).tap;
  return typeof tap === "function" ? tap.bind(value) : undefined;
}
