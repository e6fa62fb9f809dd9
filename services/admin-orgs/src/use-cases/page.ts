/** A page as a list request asks for it (unset fields take the defaults of pageWindow). */
export type PageRequest = { number?: number; size?: number } | null | undefined;
