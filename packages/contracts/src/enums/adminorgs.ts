// The enum tables of proto/policyhub/adminorgs (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
export {};
