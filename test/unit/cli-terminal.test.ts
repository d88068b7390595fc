import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colours, progress } from '../../src/cli/terminal.js';

/** A stream that is (or is not) a terminal, collecting what is written. */
function stream(isTTY: boolean): NodeJS.WriteStream & { text(): string } {
  const out = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  Object.assign(out, { isTTY, columns: 120, clearLine: () => true, cursorTo: () => true, text: () => text });
  return out;
}

describe('the CLI terminal helpers', () => {
  it('colours only a terminal, and never with NO_COLOR', () => {
    expect(colours(stream(true), {}).red('x')).toBe('\u001b[31mx\u001b[0m');
    expect(colours(stream(true), { NO_COLOR: '1' }).red('x')).toBe('x');
    expect(colours(stream(false), {}).red('x')).toBe('x');
  });

  it('logs a line per change off a terminal, and draws a bar on one', async () => {
    const log = stream(false);
    const lines = progress('resync', log);
    lines.update(0, 2, 'pending 2');
    lines.update(0, 2, 'pending 2');
    lines.update(2, 2, 'synced 2');
    lines.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.text().trim().split('\n').map((line) => line.replace(/^\S+ /, ''))).toEqual(['resync: 0/2 pending 2', 'resync: 2/2 synced 2']);

    const tty = stream(true);
    const bar = progress('promote', tty);
    bar.update(5, 10, 'catching up');
    bar.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(tty.text()).toMatch(/promote \[=+-+\] 5\/10 50% catching up/);
  });
});
