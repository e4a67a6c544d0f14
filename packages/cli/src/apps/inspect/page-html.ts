/**
 * The inspector's page: one HTML document with the bundled script and style inlined (built at package build time
 * into dist/inspect-page/ by scripts/build-inspect-page.mjs), so the page is one token-checked request and works
 * offline. A fresh nonce per response admits only that script and style (Content-Security-Policy); the page may
 * connect only back to this server.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where the build puts the bundle, relative to this module (dist/src/apps/inspect/). */
export const PAGE_DIR = fileURLToPath(new URL("../../../inspect-page/", import.meta.url));

/** The inspector's page could not be found (the package was not built). */
export class PageMissingError extends Error {
  override readonly name = "PageMissingError";
}

export interface PageAssets {
  readonly script: string;
  readonly style: string;
  /** The page's client worker (served at /worker.js, behind the same checks). */
  readonly worker: string;
}

/** Reads the bundle; throws `PageMissingError` saying what to do when it is missing. */
export function loadPageAssets(dir = PAGE_DIR): PageAssets {
  try {
    return {
      script: readFileSync(`${dir}page.js`, "utf8"),
      style: readFileSync(`${dir}page.css`, "utf8"),
      worker: readFileSync(`${dir}worker.js`, "utf8"),
    };
  } catch (error) {
    throw new PageMissingError(
      `the inspector's page is not built (${(error as Error).message}); run "npm run build" in the acpkit checkout`,
      { cause: error },
    );
  }
}

/** The client worker's script and its headers (its own policy: it may only connect back to this server). */
export function renderWorker(assets: PageAssets, host: string): { body: string; headers: Record<string, string> } {
  return {
    body: assets.worker,
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "content-security-policy": `default-src 'none'; connect-src ws://${host}`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  };
}

/** The HTML document and the headers it goes with. */
export function renderPage(assets: PageAssets, host: string): { body: string; headers: Record<string, string> } {
  const nonce = randomBytes(16).toString("base64");
  // `</script` inside the bundle would end the element early: split it (the bundle is JavaScript, where `<\/` is `</`).
  const script = assets.script.replace(/<\/(script)/gi, "<\\/$1");
  const style = assets.style.replace(/<\/(style)/gi, "<\\/$1");
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>acp inspect</title>
<style nonce="${nonce}">${style}</style>
</head>
<body>
<div id="app"><p>Loading the inspector…</p></div>
<script nonce="${nonce}" type="module">${script}</script>
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    `connect-src ws://${host} http://${host}`,
    "worker-src 'self'",
    "img-src data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    body,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": csp,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    },
  };
}
