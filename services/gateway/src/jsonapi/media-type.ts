/** The JSON:API media type: every response's Content-Type, and accepted on input with application/json. */
export const JSON_API = 'application/vnd.api+json';
