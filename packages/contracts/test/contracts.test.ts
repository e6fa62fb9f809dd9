import { describe, expect, it } from 'vitest';
import { contracts, decodeMessage, encodeMessage, toTimestamp } from '../src/index.js';

describe('the shared proto loader', () => {
  it('exposes every service of proto/ as a gRPC constructor', () => {
    const v1 = contracts().policyhub.adminorgs.v1;
    expect(Object.keys(v1.Identity.service)).toContain('Authenticate');
  });

  it('round-trips an event payload', () => {
    const bytes = encodeMessage('policyhub.adminorgs.v1.WorkspaceDeleted', {
      eventId: 'e-1',
      occurredAt: toTimestamp('2026-01-01T00:00:00.250Z'),
      organization: 'acme',
      workspaceId: 'ws-1',
    });
    expect(decodeMessage('policyhub.adminorgs.v1.WorkspaceDeleted', bytes)).toEqual({
      eventId: 'e-1',
      occurredAt: { seconds: '1767225600', nanos: 250_000_000 },
      organization: 'acme',
      workspaceId: 'ws-1',
    });
  });

  it('refuses a payload of the wrong shape', () => {
    expect(() => encodeMessage('policyhub.adminorgs.v1.WorkspaceDeleted', { workspaceId: 5 })).toThrow(
      /invalid/,
    );
  });
});
