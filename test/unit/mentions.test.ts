import { describe, expect, it } from 'vitest';
import { directlyAddressedUsernames, mentionedUsernames } from '../../src/services/issuables/mentions.js';

describe('mentions', () => {
  it('reads @usernames and @group/subgroup paths outside code, words and email addresses', () => {
    const text = 'Hi @alice, and @bob. Ask @team/backend or @Alice.\n`@code` a@mail.com\n```\n@fenced\n```\n@carol_1-x';
    expect(mentionedUsernames(text)).toEqual(['alice', 'bob', 'team/backend', 'carol_1-x']);
    expect(mentionedUsernames(null)).toEqual([]);
    expect(mentionedUsernames('no mentions')).toEqual([]);
  });

  it('reads the mentions a text opens with as directly addressed', () => {
    expect(directlyAddressedUsernames('@alice @bob, please look at @carol')).toEqual(['alice', 'bob']);
    expect(directlyAddressedUsernames('  @team/backend look')).toEqual(['team/backend']);
    expect(directlyAddressedUsernames('please @alice')).toEqual([]);
  });
});
