/** Normalises a page request (the gateway already validated ranges) into LIMIT/OFFSET. */
export function pageWindow(page: { number?: number; size?: number } | null | undefined): {
  number: number;
  size: number;
  offset: number;
} {
  const number = Math.max(1, page?.number || 1);
  const size = Math.min(100, Math.max(1, page?.size || 20));
  return { number, size, offset: (number - 1) * size };
}

export function pageInfo(window: { number: number; size: number }, totalCount: number) {
  return {
    currentPage: window.number,
    pageSize: window.size,
    totalPages: Math.max(1, Math.ceil(totalCount / window.size)),
    totalCount,
  };
}
