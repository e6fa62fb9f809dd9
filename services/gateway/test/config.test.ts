import { ConfigError, loadConfig } from '@policyhub/config';
import { describe, expect, it } from 'vitest';
import { gatewayConfigShape } from '../src/config.js';

/** The one variable without a default (docs/security.md); a made-up key for these tests. */
const REQUIRED = { INTERNAL_SIGNING_KEYS: `k1:${'s'.repeat(40)}` };
const load = (env: Record<string, string>) => loadConfig(gatewayConfigShape, { ...REQUIRED, ...env });

describe('gateway configuration', () => {
  it('keeps the ops listener on loopback and the edge limits on by default', () => {
    const config = load({});
    expect(config).toMatchObject({
      PORT: 8080,
      OPS_PORT: 9464,
      OPS_HOST: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: 30,
      AUTH_FAILURE_LIMIT: 20,
      AUTH_FAILURE_WINDOW_SECONDS: 60,
    });
    expect(config.TRUST_PROXY).toBeUndefined();
  });

  it('reads TRUST_PROXY as a list of addresses, CIDRs and named ranges', () => {
    expect(load({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.10,fd00::/8,uniquelocal' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      'fd00::/8',
      'uniquelocal',
    ]);
  });

  it.each(['yes', '10.0.0.0/33', 'example.com', '10.0.0.1/8/2', ' , '])('rejects TRUST_PROXY=%j', (value) => {
    expect(() => load({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => load({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });

  it('reads ALLOWED_HOSTS as host names or addresses with optional ports, and the body limits', () => {
    expect(
      load({ ALLOWED_HOSTS: 'policyhub.example, api.example:8443,[::1],10.0.0.5' }).ALLOWED_HOSTS,
    ).toEqual(['policyhub.example', 'api.example:8443', '[::1]', '10.0.0.5']);
    expect(load({})).toMatchObject({
      BODY_TIMEOUT_SECONDS: 30,
      UPLOAD_BODY_TIMEOUT_SECONDS: 900,
      OPEN_BODIES_PER_ADDRESS: 64,
    });
  });

  it.each(['http://x.example', 'a b', 'x.example/path', ' , ', '-x.example'])(
    'rejects ALLOWED_HOSTS=%j',
    (value) => {
      expect(() => load({ ALLOWED_HOSTS: value })).toThrow(/ALLOWED_HOSTS/);
    },
  );

  it('takes backend addresses as host:port or dns:///host:port (every address of a headless Service)', () => {
    expect(load({ ADMIN_ORGS_ADDR: 'dns:///admin-orgs:50051', RUNS_ADDR: 'runs:50051' })).toMatchObject({
      ADMIN_ORGS_ADDR: 'dns:///admin-orgs:50051',
      RUNS_ADDR: 'runs:50051',
    });
    for (const value of [
      'admin-orgs',
      'http://admin-orgs:50051',
      'dns://admin-orgs:50051',
      'dns:///:50051',
    ]) {
      expect(() => load({ ADMIN_ORGS_ADDR: value }), value).toThrow(/ADMIN_ORGS_ADDR/);
    }
  });

  it('rejects a failure window under one second', () => {
    expect(() => load({ AUTH_FAILURE_WINDOW_SECONDS: '0' })).toThrow(/AUTH_FAILURE_WINDOW_SECONDS/);
  });

  it('serves the spec vocabulary unless API_VOCABULARY says tfe; anything else is refused', () => {
    expect(load({}).API_VOCABULARY).toBe('spec');
    expect(load({ API_VOCABULARY: 'tfe' }).API_VOCABULARY).toBe('tfe');
    for (const value of ['TFE', 'upstream', 'both']) {
      expect(() => load({ API_VOCABULARY: value })).toThrow(/API_VOCABULARY: must be spec or tfe/);
    }
  });
});
