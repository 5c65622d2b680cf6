/**
 * The order Vitest starts test files in (vitest.config.ts, `sequence.sequencer`): longest first. The Node
 * files share two cores three at a time, so a long file started late is the run's tail. Vitest's own
 * order is by the durations of the last run on this machine (kept in node_modules/.vite); a fresh clone,
 * as in CI, has none, and then Vitest goes by file size, which started the heaviest files a minute in:
 * the Node suite took 144-151 s against 119 s with the cache, and 137 s in this order from no cache
 * (`time npm test` after removing node_modules/.vite). So the durations of a run are kept in test/durations.json
 * (`npm run test:durations` writes them from the last run's test-results/vitest.json). A file not listed
 * there runs first, as Vitest runs unknown files first.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const durations = JSON.parse(readFileSync(new URL("../test/durations.json", import.meta.url), "utf8")) as Record<
  string,
  number
>;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) =>
      durations[relative(this.ctx.config.root, file.moduleId).replaceAll("\\", "/")] ?? Infinity;
    return [...files].sort((a, b) => {
      // projects run one after another
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const [ta, tb] = [seconds(a), seconds(b)];
      return ta === tb ? 0 : ta > tb ? -1 : 1;
    });
  }
}
