import * as grpc from '@grpc/grpc-js';
import { type AppError, invalidAttribute, notFound } from '@policyhub/errors';
import { toServiceError } from '@policyhub/grpc-runtime';
import { describe, expect, it } from 'vitest';
import {
  CODE_FOR_BARE_GRPC_STATUS,
  httpErrorFromAppError,
  httpErrorFromGrpc,
  httpStatusOf,
} from '../src/errors/http-errors.js';
import { RequestDocument, readIdentifierList } from '../src/jsonapi/body.js';
import { parseInclude } from '../src/jsonapi/include.js';
import { hasPageParams, paginationDocument, parsePage } from '../src/jsonapi/pagination.js';
import { hostAllowed } from '../src/plugins/public-url.js';
import { normaliseUrl, parseQuery } from '../src/plugins/url.js';

const catchError = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected an error');
};

describe('the /api/v2 prefix rule', () => {
  it.each([
    ['/ping', '/api/v2/ping'],
    ['/api/v2/ping', '/api/v2/ping'],
    ['/api/v2/api/v2/ping', '/api/v2/ping'],
    ['/admin/organizations?q=a', '/api/v2/admin/organizations?q=a'],
    ['/api/v2', '/api/v2'],
    ['/api/v2x/ping', '/api/v2/api/v2x/ping'],
    // Health and metrics are not on this port (ops listener): no path is kept at the root.
    ['/metrics', '/api/v2/metrics'],
  ])('%s is served as %s', (input, expected) => {
    expect(normaliseUrl(input)).toBe(expected);
  });
});

describe('query parsing', () => {
  it('decodes percent-encoded brackets and encoded commas', () => {
    expect(
      parseQuery('page%5Bnumber%5D=2&page%5Bsize%5D=100&include=current_version%2Cnewest_version'),
    ).toEqual({
      'page[number]': '2',
      'page[size]': '100',
      include: 'current_version,newest_version',
    });
  });

  it('joins repeated include parameters', () => {
    expect(parseQuery('include=a&include=b').include).toBe('a,b');
  });
});

describe('pagination', () => {
  it('defaults to page 1 of 20', () => {
    expect(parsePage({})).toEqual({ number: 1, size: 20 });
  });

  it.each(['0', '101', '-1', 'abc', '1.5'])('rejects page[size]=%s with the upstream 422 body', (size) => {
    const err = catchError(() => parsePage({ 'page[size]': size }));
    const http = httpErrorFromAppError(err);
    expect(http.statusCode).toBe(422);
    expect(http.body.errors[0]).toMatchObject({
      status: '422',
      title: 'invalid attribute',
      detail: 'page[size] must be between 1 and 100',
    });
  });

  it('rejects a page number that is not a positive integer', () => {
    expect(httpErrorFromAppError(catchError(() => parsePage({ 'page[number]': '0' }))).statusCode).toBe(422);
  });

  it('knows whether the client asked for pages', () => {
    expect(hasPageParams({})).toBe(false);
    expect(hasPageParams({ 'page[size]': '5' })).toBe(true);
  });

  it('builds meta and links with null prev/next at the ends, keeping the parameters the route understands only', () => {
    const doc = paginationDocument(
      { currentPage: 1, pageSize: 2, totalPages: 3, totalCount: 5 },
      'http://h',
      '/api/v2/things',
      { 'filter[kind]': 'kind_a', 'page[size]': '2', 'utm[x]': 'pasted' },
      new Set(['filter[kind]', 'page[number]', 'page[size]']),
    );
    expect(doc.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 2,
      'prev-page': null,
      'next-page': 2,
      'total-pages': 3,
      'total-count': 5,
    });
    expect(doc.links.prev).toBeNull();
    expect(doc.links.next).toBe(
      'http://h/api/v2/things?filter%5Bkind%5D=kind_a&page%5Bnumber%5D=2&page%5Bsize%5D=2',
    );
    expect(doc.links.last).toContain('page%5Bnumber%5D=3');
  });

  it('echoes a page past the end with the true total', () => {
    const doc = paginationDocument(
      { currentPage: 999, pageSize: 20, totalPages: 1, totalCount: 3 },
      'http://h',
      '/x',
      {},
      new Set(),
    );
    expect(doc.meta.pagination['current-page']).toBe(999);
    expect(doc.meta.pagination['total-count']).toBe(3);
    expect(doc.meta.pagination['next-page']).toBeNull();
  });
});

describe('include parsing', () => {
  const allowed = ['policies', 'current_version', 'workspace_exclusions'];

  it('accepts hyphen and underscore spellings and returns the canonical one', () => {
    expect([...parseInclude('current-version,workspace_exclusions', allowed)]).toEqual([
      'current_version',
      'workspace_exclusions',
    ]);
  });

  it('rejects unknown names with a 400 mentioning the include parameter', () => {
    const http = httpErrorFromAppError(catchError(() => parseInclude('policies,owners', allowed)));
    expect(http.statusCode).toBe(400);
    expect(http.body.errors[0]!.detail).toContain('include parameter');
  });

  it('treats an empty include as none', () => {
    expect(parseInclude('', allowed).size).toBe(0);
  });
});

describe('error mapping', () => {
  it('maps every bare gRPC status to a catalog code and status', () => {
    for (const code of Object.values(grpc.status).filter((v) => typeof v === 'number')) {
      expect(httpStatusOf(CODE_FOR_BARE_GRPC_STATUS[code as grpc.status])).toBeGreaterThanOrEqual(400);
    }
  });

  it('turns a validation error from a service into a 422 with its pointer', () => {
    const http = httpErrorFromGrpc(
      toServiceError(invalidAttribute('POLICY_SETS_NAME_TAKEN', 'name', 'Name has already been taken')),
    );
    expect(http).toEqual({
      statusCode: 422,
      body: {
        errors: [
          {
            status: '422',
            code: 'POLICY_SETS_NAME_TAKEN',
            title: 'invalid attribute',
            detail: 'Name has already been taken',
            source: { pointer: '/data/attributes/name' },
          },
        ],
      },
    });
  });

  it('renders 404 without any detail, so hidden looks like missing', () => {
    expect(httpErrorFromGrpc(toServiceError(notFound()))).toEqual({
      statusCode: 404,
      body: { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] },
    });
  });

  it('maps PERMISSION_DENIED to 404 and never leaks internal details of a 500', () => {
    const denied = Object.assign(new Error('x'), {
      code: grpc.status.PERMISSION_DENIED,
      metadata: new grpc.Metadata(),
      details: 'secret',
    });
    expect(httpErrorFromGrpc(denied).statusCode).toBe(404);
    const internal = Object.assign(new Error('x'), {
      code: grpc.status.INTERNAL,
      metadata: new grpc.Metadata(),
      details: 'stack trace',
    });
    expect(JSON.stringify(httpErrorFromGrpc(internal).body)).not.toContain('stack trace');
  });
});

describe('request documents (once their schema accepted them)', () => {
  it('read values; absent and null are not sent, except where null clears', () => {
    const doc = new RequestDocument({
      data: { type: 't', attributes: { name: 'a', description: null, global: null, limit: null } },
    });
    expect(doc.string('name')).toBe('a');
    expect(doc.string('missing')).toBeUndefined();
    expect(doc.nullableString('description')).toBeNull();
    expect(doc.boolean('global')).toBeUndefined();
    expect(doc.nullableInteger('limit')).toBeNull();
    expect(new RequestDocument(undefined).string('name')).toBeUndefined();
  });

  it('read only type and id from full resource objects in relationship arrays, each id once', () => {
    const data = [
      { type: 'workspaces', id: 'ws-1', attributes: { name: 'x' }, relationships: {} },
      { type: 'workspaces', id: 'ws-1' },
      { type: 'workspaces', id: 'ws-2' },
    ];
    expect(readIdentifierList({ data })).toEqual(['ws-1', 'ws-2']);
    const doc = new RequestDocument({
      data: { type: 'policy-sets', relationships: { workspaces: { data }, project: { data: null } } },
    });
    expect(doc.relationshipIds('workspaces')).toEqual(['ws-1', 'ws-2']);
    expect(doc.relationshipId('project')).toBeUndefined();
  });
});

describe('errors carrying non-ASCII text', () => {
  it('survive the trip through gRPC metadata unchanged', () => {
    const detail = 'durée invalide: 5µs — ünïcödé ✓';
    const err = toServiceError(invalidAttribute('POLICY_SETS_INVALID_NAME', 'name', detail));
    expect(httpErrorFromGrpc(err).body.errors[0]!.detail).toBe(detail);
  });
});

describe('allowed hosts', () => {
  it('match names case-insensitively, on any port unless the entry names one', () => {
    const allowed = ['policyhub.example', 'api.example:8443', '[::1]'];
    expect(hostAllowed('PolicyHub.Example', allowed)).toBe(true);
    expect(hostAllowed('policyhub.example:8080', allowed)).toBe(true);
    expect(hostAllowed('api.example:8443', allowed)).toBe(true);
    expect(hostAllowed('api.example', allowed)).toBe(false);
    expect(hostAllowed('api.example:443', allowed)).toBe(false);
    expect(hostAllowed('[::1]:8080', allowed)).toBe(true);
    expect(hostAllowed('evil.example', allowed)).toBe(false);
    expect(hostAllowed('policyhub.example.evil.example', allowed)).toBe(false);
    expect(hostAllowed(undefined, allowed)).toBe(false);
  });
});
