import type { CliCommand } from './run-cli';

/** Operator commands by their two-word name; features add theirs here. */
export const CLI_COMMANDS: Record<string, CliCommand> = {};
