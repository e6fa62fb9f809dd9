/** A row referenced something that is gone (e.g. a policy deleted while a set was being saved). */
export const isForeignKeyViolation = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === '23503';
