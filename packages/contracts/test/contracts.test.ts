import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { contracts, decodeMessage, encodeMessage, messageRoot, toTimestamp } from '../src/index.js';

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
      occurredAt: { seconds: 1_767_225_600, nanos: 250_000_000 },
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

  it('decodes 64-bit fields as exact numbers, and has none that could outgrow 2^53', () => {
    // longs: Number (docs/adr/0035-typed-protos.md): exact while every value stays below 2^53. A
    // new 64-bit field must be one whose values cannot get there; add it here once checked.
    const bounded = [
      'google.protobuf.Timestamp.seconds', // years 0001–9999: below 2^38 (Date's range: below 2^43)
      'policyhub.runs.v1.CompletePolicyCheckRequest.durationMs',
      'policyhub.runs.v1.ObjectReference.sizeBytes', // object sizes: bounded by the upload limits
      'policyhub.runs.v1.PolicyCheckResult.durationMs',
      'policyhub.storage.v1.ManifestEntry.sizeBytes',
      'policyhub.storage.v1.ObjectInfo.sizeBytes',
      'policyhub.storage.v1.PutObjectResponse.sizeBytes',
      'policyhub.storage.v1.UploadCompleted.sizeBytes',
      'policyhub.storage.v1.UploadResponse.sizeBytes',
    ];
    const found: string[] = [];
    const visit = (ns: protobuf.NamespaceBase): void => {
      for (const nested of ns.nestedArray) {
        if (nested instanceof protobuf.Type)
          for (const f of nested.fieldsArray)
            if (/^(u|s)?int64$|fixed64$/.test(f.type)) found.push(`${nested.fullName.slice(1)}.${f.name}`);
        if (nested instanceof protobuf.Namespace) visit(nested);
      }
    };
    visit(messageRoot());
    expect(found.sort()).toEqual(bounded);
    const bytes = encodeMessage('policyhub.storage.v1.UploadCompleted', {
      eventId: 'e-3',
      occurredAt: toTimestamp('9999-12-31T23:59:59.999Z'),
      sizeBytes: 2 ** 53 - 1,
    });
    expect(decodeMessage('policyhub.storage.v1.UploadCompleted', bytes)).toMatchObject({
      occurredAt: { seconds: 253_402_300_799, nanos: 999_000_000 },
      sizeBytes: 2 ** 53 - 1,
    });
  });
});
