/**
 * Noticing that the process that started us is gone. `npx acp serve` (and `npm exec`, `npm run`) runs the program
 * under `sh -c`: a supervisor's SIGTERM reaches npm, npm passes it to that shell, the shell dies without passing it
 * on, and the server is reparented (to init, or a subreaper) still listening. Under npm, `acp serve` therefore
 * watches its parent and stops, as on SIGTERM, once it changes. Elsewhere a changed parent is deliberate
 * (`nohup`, `setsid`, a shell that exited), so the watch is off unless `--exit-with-parent` asks for it.
 */

/** True when npm started this process (npx, npm exec, npm run set `npm_execpath`). */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return typeof env.npm_execpath === "string" && env.npm_execpath !== "";
}

export interface ParentWatch {
  /** Resolves with the pid of the parent that went away. */
  readonly gone: Promise<number>;
  stop(): void;
}

/** Polls the parent pid (every `intervalMs`, unref'd: it keeps nothing alive) and resolves once it changed. */
export function watchParent(options: { intervalMs?: number; ppid?: () => number } = {}): ParentWatch {
  const ppid = options.ppid ?? (() => process.ppid);
  const first = ppid();
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<number>((resolve) => {
    timer = setInterval(() => {
      if (ppid() === first) return;
      clearInterval(timer);
      resolve(first);
    }, options.intervalMs ?? 500);
    timer.unref();
  });
  return { gone, stop: () => clearInterval(timer) };
}
