// The enum tables of proto/policyhub/runs (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
export {};
