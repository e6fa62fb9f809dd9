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

  it('takes enum fields by value name and refuses a name the enum lacks', () => {
    const event = {
      eventId: 'e-2',
      occurredAt: { seconds: 1_767_225_600, nanos: 0 },
      organization: 'acme',
      ownerKind: 'UPLOAD_OWNER_KIND_CONFIGURATION_VERSION',
      ownerId: 'cv-1',
      ownerParentId: 'ws-1',
      ok: false,
      errorCode: 'STORAGE_UPLOAD_EXPIRED',
      errorMessage: 'expired',
    };
    const decoded = decodeMessage<Record<string, unknown>>(
      'policyhub.storage.v1.UploadCompleted',
      encodeMessage('policyhub.storage.v1.UploadCompleted', event),
    );
    expect(decoded).toMatchObject({
      ownerKind: 'UPLOAD_OWNER_KIND_CONFIGURATION_VERSION',
      errorCode: 'STORAGE_UPLOAD_EXPIRED',
    });
    // Unset optional fields stay unset (no '' standing for "none").
    expect(decoded.objectKey).toBeUndefined();
    expect(() =>
      encodeMessage('policyhub.storage.v1.UploadCompleted', { ...event, ownerKind: 'configuration-version' }),
    ).toThrow(/ownerKind: enum value expected/);
  });

  it('refuses a payload of the wrong shape', () => {
    expect(() => encodeMessage('policyhub.adminorgs.v1.WorkspaceDeleted', { workspaceId: 5 })).toThrow(
      /invalid/,
    );
  });
});
