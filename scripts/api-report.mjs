#!/usr/bin/env node
/**
 * The public API of @acpkit/sdk, one report per entry point (api/<subpath>.api.md), made by API Extractor from the
 * built declarations (dist/src/entries/*.d.ts; build first). A change to what an entry exports is then a visible
 * diff in review.
 *
 *   node scripts/api-report.mjs           check: fails (exit 1) when a report differs from what is checked in,
 *                                          and says how to update it (npm run api:check)
 *   node scripts/api-report.mjs --update   writes the reports (npm run api:update)
 *
 * Every subpath of package.json's "exports" that has types gets a report (a new entry gets one on the next update);
 * a checked-in report of an entry that is gone fails the check.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from "@microsoft/api-extractor";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const reportFolder = join(root, "api");
const update = process.argv.includes("--update");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** `./experimental/v2/unstable` -> `experimental-v2-unstable`; `.` -> `index`. */
const reportName = (subpath) => (subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-"));

const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === "object" && target.types)
  .map(([subpath, target]) => ({ subpath, name: reportName(subpath), types: join(root, target.types) }));

const temp = mkdtempSync(join(tmpdir(), "acpkit-api-"));
const none = { logLevel: ExtractorLogLevel.None };
const configFor = (entry) =>
  ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "ES2022",
            lib: ["ES2023", "DOM"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            types: ["node"],
          },
          files: entries.map((e) => e.types),
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.name}.api.md`,
        reportFolder,
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report records what is exported; doc-comment syntax and release tags are not what it checks.
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          "ae-missing-release-tag": none,
          "ae-forgotten-export": { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          "ae-unresolved-link": none,
          "ae-internal-missing-underscore": none,
          // Listed with the declaration file's line numbers: any edit above a member would change every report.
          "ae-undocumented": none,
        },
        tsdocMessageReporting: { default: none },
      },
    },
    configObjectFullPath: join(root, "api", "api-extractor.json"),
    packageJsonFullPath: join(root, "package.json"),
  });

let failed = false;
let compilerState;
try {
  for (const entry of entries) {
    const config = configFor(entry);
    compilerState ??= CompilerState.create(config, { additionalEntryPoints: entries.map((e) => e.types) });
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      messageCallback: (message) => {
        // Compiler and extractor warnings are not this check's business; errors are.
        if (message.logLevel !== ExtractorLogLevel.Error) message.handled = true;
      },
    });
    if (!result.succeeded) {
      failed = true;
      const where = relative(root, join(reportFolder, `${entry.name}.api.md`));
      process.stderr.write(
        result.apiReportChanged
          ? `api: the public API of @acpkit/sdk${entry.subpath.slice(1)} changed (${where}). ` +
              "If that is intended, run `npm run api:update` and commit the report.\n"
          : `api: API Extractor failed on ${entry.subpath} (${result.errorCount} errors)\n`,
      );
    }
  }
  const expected = new Set(entries.map((entry) => `${entry.name}.api.md`));
  for (const file of readdirSync(reportFolder).filter((name) => name.endsWith(".api.md"))) {
    if (expected.has(file)) continue;
    if (update) unlinkSync(join(reportFolder, file));
    else {
      failed = true;
      process.stderr.write(
        `api: api/${file} reports an entry package.json no longer exports; run npm run api:update\n`,
      );
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
process.stdout.write(
  failed
    ? "api: the reports differ from the public API\n"
    : `api: ${entries.length} entry points, ${update ? "reports written to api/" : "reports match"}\n`,
);
process.exitCode = failed ? 1 : 0;
