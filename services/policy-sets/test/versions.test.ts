import { describe, expect, it } from 'vitest';
import { canTakeUploadedVersions, isUploadUsable, settle, uploadExpiry } from '../src/domain/versions.js';

describe('policy set version rules', () => {
  it('takes uploaded versions only without a VCS repository and without individual policies', () => {
    expect(canTakeUploadedVersions({ hasVcsRepo: false, hasPolicies: false })).toBe(true);
    expect(canTakeUploadedVersions({ hasVcsRepo: true, hasPolicies: false })).toBe(false);
    expect(canTakeUploadedVersions({ hasVcsRepo: false, hasPolicies: true })).toBe(false);
  });

  it('lets the upload URL expire one hour after created-at', () => {
    expect(uploadExpiry(new Date('2026-01-01T00:00:00.000Z')).toISOString()).toBe('2026-01-01T01:00:00.000Z');
  });

  it('shows the upload URL only while pending, unused and unexpired', () => {
    const now = new Date('2026-01-01T00:30:00.000Z');
    const v = {
      status: 'pending' as const,
      uploadSessionId: 'upl-1',
      uploadExpiresAt: '2026-01-01T01:00:00.000Z',
    };
    expect(isUploadUsable(v, now)).toBe(true);
    expect(isUploadUsable({ ...v, status: 'ready' }, now)).toBe(false);
    expect(isUploadUsable({ ...v, uploadSessionId: null }, now)).toBe(false);
    expect(isUploadUsable(v, new Date('2026-01-01T01:00:00.000Z'))).toBe(false);
  });

  it('settles a pending version once, to ready or errored', () => {
    const ok = { ok: true as const, objectKey: 'k', sizeBytes: 3, sha256: 'abc' };
    expect(settle({ status: 'pending' }, ok)).toEqual({
      status: 'ready',
      objectKey: 'k',
      sizeBytes: 3,
      sha256: 'abc',
    });
    expect(settle({ status: 'pending' }, { ok: false, errorCode: 'E', errorMessage: 'm' })).toEqual({
      status: 'errored',
      error: 'E',
      errorMessage: 'm',
    });
    expect(settle({ status: 'ready' }, ok)).toBeUndefined();
    expect(settle({ status: 'errored' }, ok)).toBeUndefined();
  });
});
