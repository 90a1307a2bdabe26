import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

/** Finding 4: TRUST_PROXY names the proxies in front of the service; "trust every hop" is not an option. */
describe('TRUST_PROXY', () => {
  it('refuses true with a message saying what to set instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/^TRUST_PROXY=true would trust every hop.*number of proxies.*addresses/);
  });

  it('takes a hop count, a list of proxy addresses or CIDRs, or false', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it.each(['yes', '10.0.0.0/33', 'proxy.internal', '-1', '1.2.3.4, nonsense'])('refuses %s naming the variable', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^TRUST_PROXY/);
  });

  it('is a hop count in docker-compose.yml, where one balancer sets X-Forwarded-For', () => {
    const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/TRUST_PROXY: ['"]1['"]/);
    expect(compose).not.toMatch(/TRUST_PROXY: ['"]?true/);
  });
});
