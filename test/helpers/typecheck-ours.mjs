// `node typecheck-ours.mjs <tsconfig.json> <package name>`: what `tsc -p` with skipLibCheck off reports
// for the consumer's own files and for the named package's declarations, and nothing for the other
// declarations in node_modules. A full `tsc` also checks every line of the MCP SDK's and zod's
// declarations (about 11 of its 13 seconds here); those are theirs to check, ours are the package's.
// Prints the diagnostics as tsc does (nothing when there are none) and exits 1 when there are any.
import { dirname, resolve, sep } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const ts = require(resolve(dirname(fileURLToPath(import.meta.url)), "../../node_modules/typescript"));

const [configPath, packageName] = process.argv.slice(2);
if (!configPath || !packageName) throw new Error("usage: typecheck-ours.mjs <tsconfig.json> <package name>");

const parsed = ts.getParsedCommandLineOfConfigFile(
  resolve(configPath),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  },
);
if (parsed.options.skipLibCheck)
  throw new Error("skipLibCheck is on: nothing of the package's declarations would be checked");
const program = ts.createProgram({
  rootNames: parsed.fileNames,
  options: parsed.options,
  projectReferences: parsed.projectReferences,
});

const ours = `${sep}node_modules${sep}${packageName}${sep}`;
const isOurs = (file) => !file.fileName.includes(`${sep}node_modules${sep}`) || file.fileName.includes(ours);
const checked = program.getSourceFiles().filter(isOurs);
if (!checked.some((file) => file.fileName.includes(ours)))
  throw new Error(`no declaration of ${packageName} in the program`);

const diagnostics = [
  ...parsed.errors,
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
];
const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => "\n" };
if (diagnostics.length > 0) {
  process.stdout.write(ts.formatDiagnostics(diagnostics, host));
  process.exitCode = 1;
}
