import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { decodeMessage, type storageV1, uploadCompletedOwnerKind } from '../src/index.js';

// Events outlive a release (ADR 0035): an upload acknowledged before an upgrade may still sit in
// the outbox or on the bus, written with the message as it was before the typed protos. These
// bytes come from that old declaration, verbatim.
const before = protobuf
  .parse(`
  syntax = "proto3";
  package old;
  message UploadCompleted {
    string event_id = 1;
    string occurred_at = 2;
    string organization = 3;
    string owner_kind = 4;
    string owner_id = 5;
    string owner_parent_id = 6;
    bool ok = 7;
    string error_code = 8;
    string error_message = 9;
    string object_key = 10;
    int64 size_bytes = 11;
    string sha256 = 12;
  }
`)
  .root.lookupType('old.UploadCompleted');

const oldEvent = (ownerKind: string) =>
  before
    .encode(
      before.fromObject({
        eventId: 'e-1',
        occurredAt: '2026-11-23T10:00:00.000Z',
        organization: 'acme',
        ownerKind,
        ownerId: 'polsetver-1',
        ok: true,
        objectKey: 'k',
        sizeBytes: 42,
        sha256: 'abc',
      }),
    )
    .finish();

describe('storage.upload-completed across the typed-proto release', () => {
  it('an event written before the enum still names its owner kind', () => {
    const event = decodeMessage<storageV1.UploadCompleted__Output>(
      'policyhub.storage.v1.UploadCompleted',
      oldEvent('policy-set-version'),
    );
    expect(event.ownerKind).toBe('UPLOAD_OWNER_KIND_UNSPECIFIED');
    expect(uploadCompletedOwnerKind(event)).toBe('UPLOAD_OWNER_KIND_POLICY_SET_VERSION');
    expect(event).toMatchObject({
      ownerId: 'polsetver-1',
      ok: true,
      objectKey: 'k',
      sizeBytes: 42,
      sha256: 'abc',
    });
    expect(
      uploadCompletedOwnerKind(
        decodeMessage('policyhub.storage.v1.UploadCompleted', oldEvent('configuration-version')),
      ),
    ).toBe('UPLOAD_OWNER_KIND_CONFIGURATION_VERSION');
  });

  it('a new event is read from the enum, and an unknown old word names no kind', () => {
    expect(
      uploadCompletedOwnerKind({ ownerKind: 'UPLOAD_OWNER_KIND_CONFIGURATION_VERSION', legacyOwnerKind: '' }),
    ).toBe('UPLOAD_OWNER_KIND_CONFIGURATION_VERSION');
    expect(
      uploadCompletedOwnerKind(decodeMessage('policyhub.storage.v1.UploadCompleted', oldEvent('__proto__'))),
    ).toBeUndefined();
  });
});
