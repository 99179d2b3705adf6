/**
 * A command the game refused to run is reported as refused (issue 27): the mod's `cmd_ack` does
 * not fail, the refusal is in its feedback lines (mod-protocol.md §2.10).
 */
import { describe, expect, it } from 'vitest';
import { commandRefusal } from 'mcbridge/kit';
import { useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('commandRefusal', () => {
  it("finds brigadier's refusals with their context line, and nothing in a command that ran", () => {
    expect(commandRefusal(['Unknown or incomplete command, see below for error', 'frobnicate<--[HERE]'])).toBe('Unknown or incomplete command, see below for error\nfrobnicate<--[HERE]');
    expect(commandRefusal(['Unknown game mode: flying', '...de flying<--[HERE]'])).toBe('Unknown game mode: flying\n...de flying<--[HERE]');
    expect(commandRefusal(['Incorrect argument for command'])).toBe('Incorrect argument for command');
    expect(commandRefusal(['The time is 1000'])).toBeNull();
    expect(commandRefusal(['No entity was found'])).toBeNull();
    expect(commandRefusal([])).toBeNull();
  });
});

describe('command and command_output on the sim', () => {
  it("an unknown command and a syntax error say refused, with the game's words", async () => {
    const stack = await stacks.start();
    const unknown = (await stack.client.call('command', { command: 'frobnicate now' })) as Record<string, any>;
    expect(unknown).toMatchObject({ type: 'cmd_ack', refused: true, refusal: expect.stringMatching(/^Unknown or incomplete command/) });
    const syntax = (await stack.client.call('command_output', { command: 'gamemode flying Steve' })) as Record<string, any>;
    expect(syntax).toMatchObject({ refused: true, refusal: expect.stringMatching(/<--\[HERE\]$/) });
  });

  it('a command that ran says refused: false, even when it found nothing to do', async () => {
    const stack = await stacks.start();
    expect(await stack.client.call('command', { command: 'time query daytime' })).toMatchObject({ refused: false });
    const none = (await stack.client.call('command_output', { command: 'kill @e[type=minecraft:ghast]' })) as Record<string, any>;
    expect(none).toMatchObject({ refused: false, output: ['No entity was found'] });
    expect(none.refusal).toBeUndefined();
  });
});
