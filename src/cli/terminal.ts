import { createRequire } from 'node:module';

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colours(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env) {
  const on = stream.isTTY === true && !env.NO_COLOR;
  const paint = (code: number) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { on, green: paint(32), red: paint(31), yellow: paint(33), bold: paint(1), dim: paint(2) };
}

/** The part of the `progress` package (a maintained progress bar, already a dependency of the tree) this CLI uses. */
interface ProgressBar {
  tick(delta: number, tokens?: Record<string, string>): void;
  update(ratio: number, tokens?: Record<string, string>): void;
  terminate(): void;
}
type ProgressBarClass = new (format: string, options: { total: number; width?: number; stream?: NodeJS.WriteStream; renderThrottle?: number; clear?: boolean }) => ProgressBar;

/** What a long operation reports as it goes: a bar on a terminal, else a log line per step to stderr. */
export interface Progress {
  /** `done` of `total` units, with a few words on the state. */
  update(done: number, total: number, detail: string): void;
  end(): void;
}

/**
 * A progress display for `label` on stderr (stdout carries the result, --json among them): a
 * `progress` bar when stderr is a terminal, else one line each time the figures change, at most
 * once a second, so a log or CI reads the same story.
 */
export function progress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const Bar = createRequire(import.meta.url)('progress') as ProgressBarClass;
    let bar: ProgressBar | null = null;
    let barTotal = 0;
    return {
      update(done, total, detail) {
        if (!bar || total !== barTotal) {
          bar?.terminate();
          barTotal = Math.max(total, 1);
          bar = new Bar(`${label} [:bar] :current/:total :percent :detail`, { total: barTotal, width: 30, stream, renderThrottle: 100 });
        }
        bar.update(Math.min(1, done / barTotal), { detail });
      },
      end() {
        bar?.terminate();
      },
    };
  }
  let last = '';
  let lastAt = 0;
  return {
    update(done, total, detail) {
      const line = `${label}: ${done}/${total}${detail ? ` ${detail}` : ''}`;
      const now = Date.now();
      if (line === last || (now - lastAt < 1000 && done < total)) return;
      last = line;
      lastAt = now;
      stream.write(`${new Date(now).toISOString()} ${line}\n`);
    },
    end() {},
  };
}
