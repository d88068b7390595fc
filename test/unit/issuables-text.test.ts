import { describe, expect, it } from 'vitest';
import { taskCompletion } from '../../src/entities/issues.js';
import { textColorFor } from '../../src/entities/labels.js';
import { humanDuration } from '../../src/entities/time-stats.js';
import { labelColor } from '../../src/services/issuables/css-colors.js';
import { mentionedUsernames } from '../../src/services/issuables/mentions.js';
import { parseDuration } from '../../src/services/issuables/time-tracking.js';

/** The tracker's pure text rules: durations, task lists, mentions, label colours. */
describe('durations (Gitlab::TimeTrackingFormatter)', () => {
  it('parses units, words, decimals, bare hours and a leading minus with 8-hour days, 5-day weeks, 4-week months', () => {
    expect(parseDuration('1w2d3h30m')).toBe(((5 + 2) * 8 + 3.5) * 3600);
    expect(parseDuration('1w 2d 3h 30m 15s')).toBe(((5 + 2) * 8 + 3.5) * 3600 + 15);
    expect(parseDuration('1mo')).toBe(4 * 5 * 8 * 3600);
    expect(parseDuration('2 days, 1 hour and 5 minutes')).toBe(17 * 3600 + 300);
    expect(parseDuration('1.5h')).toBe(5400);
    expect(parseDuration('2')).toBe(7200);
    expect(parseDuration('-30m')).toBe(-1800);
    expect(parseDuration(' 3H ')).toBe(10800);
  });

  it('refuses what is not a duration', () => {
    for (const text of ['', 'soon', '3x', '1h banana', 'h', '--1h', '1h-']) expect(parseDuration(text), text).toBe(null);
  });

  it('writes the largest units first, null for nothing', () => {
    expect(humanDuration(0)).toBe(null);
    expect(humanDuration(214200)).toBe('1w 2d 3h 30m');
    expect(humanDuration(4 * 5 * 8 * 3600 + 61)).toBe('1mo 1m 1s');
    expect(humanDuration(-5400)).toBe('-1h 30m');
    expect(humanDuration(parseDuration('3h30m')!)).toBe('3h 30m');
  });
});

describe('task lists', () => {
  it('counts list items with a checkbox, checked with x or X, in any list marker', () => {
    const text = ['- [ ] one', '* [x] two', '+ [X] three', '1. [ ] four', '2) [x] five', '  - [ ] nested', '- [] not a task', '[x] not a list item', '-[x] no space'].join('\n');
    expect(taskCompletion(text)).toEqual({ count: 6, completed_count: 3 });
    expect(taskCompletion(null)).toEqual({ count: 0, completed_count: 0 });
  });
});

describe('mentions', () => {
  it('finds @usernames once each, outside code, words and email addresses, without a trailing dot', () => {
    const text = 'Hi @alice and @Bob.smith, cc @alice. mail me@example.com\n`@code` and\n```\n@fenced\n```\n@carol_1-x.';
    expect(mentionedUsernames(text)).toEqual(['alice', 'Bob.smith', 'carol_1-x']);
    expect(mentionedUsernames('no mentions')).toEqual([]);
    expect(mentionedUsernames(null)).toEqual([]);
  });
});

describe('label colours', () => {
  it('keeps #RGB and #RRGGBB, turns CSS colour names into hex, refuses the rest', () => {
    expect(labelColor('#aBc')).toBe('#aBc');
    expect(labelColor(' #A1B2C3 ')).toBe('#A1B2C3');
    expect(labelColor('RebeccaPurple')).toBe('#663399');
    expect(labelColor('lightgoldenrodyellow')).toBe('#FAFAD2');
    for (const bad of ['#12345', '#GGGGGG', 'reddish', '', '123456']) expect(labelColor(bad), bad).toBe(null);
  });

  it('picks dark text on light colours and white on dark ones, as GitLab', () => {
    expect(textColorFor('#FFFFFF')).toBe('#333333');
    expect(textColorFor('#fff')).toBe('#333333');
    expect(textColorFor('#428BCA')).toBe('#FFFFFF');
    expect(textColorFor('#000')).toBe('#FFFFFF');
  });
});
