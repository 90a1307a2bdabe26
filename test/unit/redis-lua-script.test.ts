import { createHash } from 'node:crypto';
import { luaScript } from '../../src/redis/redis.service';

/** The usage and window scripts go to Redis by SHA1; a Redis that forgot them (restart, SCRIPT FLUSH) gets the text once. */
describe('luaScript', () => {
  const lua = "return redis.call('INCR', KEYS[1])";
  const sha = createHash('sha1').update(lua).digest('hex');

  function client(known: boolean) {
    const calls: string[] = [];
    const stub = {
      evalsha: (hash: string, keys: number, ...args: Array<string | number>) => {
        calls.push(`evalsha ${hash} ${keys} ${args.join(' ')}`);
        return known ? Promise.resolve(7) : Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      },
      eval: (text: string, keys: number, ...args: Array<string | number>) => {
        calls.push(`eval ${text === lua ? 'script' : 'other'} ${keys} ${args.join(' ')}`);
        known = true;
        return Promise.resolve(8);
      },
    };
    return { stub, calls };
  }

  it('sends the SHA1 of the script, never its text, while Redis knows it', async () => {
    const { stub, calls } = client(true);
    const run = luaScript<number>(stub as never, lua, 1);
    expect(await run('k', 5)).toBe(7);
    expect(calls).toEqual([`evalsha ${sha} 1 k 5`]);
  });

  it('sends the text once when Redis answers NOSCRIPT, then the SHA1 again', async () => {
    const { stub, calls } = client(false);
    const run = luaScript<number>(stub as never, lua, 1);
    expect(await run('k')).toBe(8);
    expect(await run('k')).toBe(7);
    expect(calls).toEqual([`evalsha ${sha} 1 k`, 'eval script 1 k', `evalsha ${sha} 1 k`]);
  });

  it('passes any other error through', async () => {
    const stub = { evalsha: () => Promise.reject(new Error('Command timed out')), eval: jest.fn() };
    await expect(luaScript(stub as never, lua, 1)('k')).rejects.toThrow('Command timed out');
    expect(stub.eval).not.toHaveBeenCalled();
  });
});
