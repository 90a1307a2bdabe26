import type { INestApplicationContext } from '@nestjs/common';
import type { ParsedArgs } from './args';

/** One operator command: runs against an application context and returns the JSON object to print. */
export type CliCommand = (app: INestApplicationContext, args: ParsedArgs) => Promise<unknown>;
