import * as grpc from '@grpc/grpc-js';
import { decodeMessage } from '@policyhub/contracts';
import {
  AppError,
  ERROR_CATALOG,
  ERROR_KINDS,
  type ErrorCode,
  type ErrorItem,
  invalidAttribute,
  remoteAppError,
} from '@policyhub/errors';
import { STATUS_DETAILS_KEY, readServiceError, toServiceError } from '@policyhub/grpc-runtime';
import { describe, expect, it } from 'vitest';
import { sourceOfField } from '../src/errors/fields.js';
import { httpErrorFromAppError, httpErrorFromGrpc } from '../src/errors/http-errors.js';

const bareStatus = (code: grpc.status, details = 'x') =>
  Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });

/** One error of each catalog code, about a field when its kind is a 422. */
const sample = (code: ErrorCode): AppError => {
  const kind = ERROR_CATALOG[code];
  const items: ErrorItem[] =
    ERROR_KINDS[kind].http === 422
      ? [
          { title: 'invalid attribute', detail: 'Name is invalid', field: 'name' },
          { title: 'invalid attribute', detail: 'Kind must be kind_a or kind_b', field: 'kind' },
        ]
      : [{ title: 'something', detail: `${code} happened` }];
  return remoteAppError(kind, code, items);
};

describe('the error model (docs/adr/0030)', () => {
  it.each(Object.keys(ERROR_CATALOG) as ErrorCode[])(
    '%s: raised in the gateway or sent by a service, clients get the same error document',
    (code) => {
      const err = sample(code);
      const local = httpErrorFromAppError(err);
      const remote = httpErrorFromGrpc(toServiceError(err));
      expect(remote).toEqual(local);
      expect(local.statusCode).toBe(ERROR_KINDS[ERROR_CATALOG[code]].http);
      for (const e of local.body.errors) {
        // 404 and 401 bodies say nothing about what was not found or why.
        const expected =
          local.statusCode === 404 ? 'NOT_FOUND' : local.statusCode === 401 ? 'UNAUTHORIZED' : code;
        expect(e.code).toBe(expected);
      }
    },
  );

  it('sends a standard google.rpc.Status with ErrorInfo and BadRequest in grpc-status-details-bin', () => {
    const err = invalidAttribute('POLICY_SETS_NAME_TAKEN', 'name', 'Name has already been taken');
    const sent = toServiceError(err);
    expect(sent.code).toBe(grpc.status.ALREADY_EXISTS);
    const raw = sent.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer;
    const status = decodeMessage<{ code: number; details: Array<{ type_url: string; value: Buffer }> }>(
      'google.rpc.Status',
      raw,
    );
    expect(status.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(status.details.map((d) => d.type_url)).toEqual([
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/google.rpc.BadRequest',
    ]);
    expect(decodeMessage('google.rpc.ErrorInfo', status.details[0]!.value)).toMatchObject({
      reason: 'POLICY_SETS_NAME_TAKEN',
      domain: 'policyhub',
    });
    expect(decodeMessage('google.rpc.BadRequest', status.details[1]!.value)).toEqual({
      fieldViolations: [{ field: 'name', description: 'Name has already been taken' }],
    });
    expect(readServiceError(sent)).toMatchObject({ code: 'POLICY_SETS_NAME_TAKEN', kind: 'already_exists' });
  });

  it('decides 413 by the kind, not by the gRPC code (RESOURCE_EXHAUSTED is also 429)', () => {
    const tooLarge = new AppError('too_large', 'RUNS_PLAN_TOO_LARGE', [
      { title: 'payload too large', detail: 'big' },
    ]);
    const limited = new AppError('rate_limited', 'GATEWAY_RATE_LIMITED', [{ title: 'too many requests' }]);
    expect(toServiceError(tooLarge).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(toServiceError(limited).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(httpErrorFromGrpc(toServiceError(tooLarge)).statusCode).toBe(413);
    expect(httpErrorFromGrpc(toServiceError(limited)).statusCode).toBe(429);
  });

  it('gives ABORTED and OUT_OF_RANGE their gRPC meaning: a conflict to retry, a bad value', () => {
    expect(Object.values(ERROR_KINDS).map((k) => k.grpc)).not.toContain('ABORTED');
    expect(Object.values(ERROR_KINDS).map((k) => k.grpc)).not.toContain('OUT_OF_RANGE');
    expect(httpErrorFromGrpc(bareStatus(grpc.status.ABORTED)).body.errors[0]).toMatchObject({
      status: '409',
      code: 'CONFLICT',
    });
    expect(httpErrorFromGrpc(bareStatus(grpc.status.OUT_OF_RANGE)).body.errors[0]).toMatchObject({
      status: '400',
      code: 'BAD_REQUEST',
    });
  });

  it('answers a bare UNAVAILABLE with a 503 that names no internals', () => {
    expect(httpErrorFromGrpc(bareStatus(grpc.status.UNAVAILABLE, 'connect ECONNREFUSED 10.0.0.1'))).toEqual({
      statusCode: 503,
      body: {
        errors: [
          {
            status: '503',
            code: 'GATEWAY_SERVICE_UNAVAILABLE',
            title: 'service unavailable',
            detail: 'a PolicyHub service is unavailable; try again shortly',
          },
        ],
      },
    });
  });
});

describe('domain fields become JSON:API sources at the gateway', () => {
  it.each([
    ['name', { pointer: '/data/attributes/name' }],
    ['enforcement_level', { pointer: '/data/attributes/enforcement-level' }],
    ['enforce[0].mode', { pointer: '/data/attributes/enforce/0/mode' }],
    ['vcs_repo.oauth_token_id', { pointer: '/data/attributes/vcs-repo/oauth-token-id' }],
    ['policies', { pointer: '/data/relationships/policies' }],
    ['workspace_exclusions', { pointer: '/data/relationships/workspace-exclusions' }],
    ['configuration_version.id', { pointer: '/data/relationships/configuration-version/data/id' }],
    ['project.id', { pointer: '/data/relationships/project/data/id' }],
    ['ids', { pointer: '/data' }],
    ['partnerships', { pointer: '/data/attributes' }],
    ['filter.kind', { parameter: 'filter[kind]' }],
    ['/resource_changes/0/change', { pointer: '/resource_changes/0/change' }],
  ])('%s → %j', (field, source) => {
    expect(sourceOfField(field)).toEqual(source);
  });
});
