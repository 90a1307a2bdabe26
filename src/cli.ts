import 'reflect-metadata';
import { runCli } from './cli/run-cli';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`);
    process.exit(1);
  },
);
