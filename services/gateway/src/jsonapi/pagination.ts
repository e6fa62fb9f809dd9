import { AppError } from '@policyhub/errors';

export interface PageParams {
  number: number;
  size: number;
}

export interface PageInfo {
  currentPage: number;
  pageSize: number;
  totalPages: number;
  totalCount: number;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const invalidPage = (param: string, detail: string) =>
  new AppError('invalid', 'GATEWAY_INVALID_PAGE', [{ title: 'invalid attribute', detail, parameter: param }]);

/** Reads `page[number]` (default 1) and `page[size]` (default 20, 1..100); anything else is a 422. */
export function parsePage(query: Record<string, string | undefined>): PageParams {
  const rawNumber = query['page[number]'];
  const rawSize = query['page[size]'];
  const number = rawNumber === undefined || rawNumber === '' ? 1 : toInt(rawNumber);
  const size = rawSize === undefined || rawSize === '' ? DEFAULT_PAGE_SIZE : toInt(rawSize);
  if (number === undefined || number < 1 || number > 1_000_000) {
    throw invalidPage('page[number]', 'page[number] must be a positive integer');
  }
  if (size === undefined || size < 1 || size > MAX_PAGE_SIZE) {
    throw invalidPage('page[size]', `page[size] must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  return { number, size };
}

/** True when the client sent either page parameter (the policy-checks list is unpaginated otherwise). */
export const hasPageParams = (query: Record<string, string | undefined>): boolean =>
  query['page[number]'] !== undefined || query['page[size]'] !== undefined;

const toInt = (s: string): number | undefined => (/^\d{1,9}$/.test(s.trim()) ? Number(s.trim()) : undefined);

/**
 * `meta.pagination` and top-level `links` for one page: absolute URLs carrying the request's
 * parameters that the route understands (`understood`, its query schema's names), never others,
 * so a client cannot make every link of a list carry what it pasted into the URL.
 */
export function paginationDocument(
  info: PageInfo,
  baseUrl: string,
  path: string,
  query: Record<string, string | undefined>,
  understood: ReadonlySet<string>,
) {
  const { currentPage, totalPages } = info;
  const kept = Object.entries(query)
    .filter(([k, v]) => v !== undefined && understood.has(k) && k !== 'page[number]' && k !== 'page[size]')
    .sort(([a], [b]) => a.localeCompare(b));
  const link = (n: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of kept) params.set(k, v!);
    params.set('page[number]', String(n));
    params.set('page[size]', String(info.pageSize));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  return {
    links: {
      self: link(currentPage),
      first: link(1),
      prev: currentPage > 1 ? link(Math.min(currentPage - 1, totalPages)) : null,
      next: currentPage < totalPages ? link(currentPage + 1) : null,
      last: link(totalPages),
    },
    meta: {
      pagination: {
        'current-page': currentPage,
        'page-size': info.pageSize,
        'prev-page': currentPage > 1 ? Math.min(currentPage - 1, totalPages) : null,
        'next-page': currentPage < totalPages ? currentPage + 1 : null,
        'total-pages': totalPages,
        'total-count': info.totalCount,
      },
    },
  };
}
