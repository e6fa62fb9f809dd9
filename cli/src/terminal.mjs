/**
 * What the CLI prints comes in part from the server (policy output, error details, names), and a
 * terminal acts on control sequences in it: it could retitle the window, rewrite earlier lines
 * (a FAILED turned into passed), or hide text. Everything the CLI writes goes through here.
 */

// ESC-introduced sequences: CSI (`ESC [ … final`), OSC/DCS/SOS/PM/APC strings up to their
// terminator (BEL or ESC \), or an unterminated one to the end; then any other two-character
// escape. The same for their 8-bit C1 introducers (U+009B CSI, U+009D OSC, …).
const SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control sequences are what is removed
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u007e]?/g;
// Whatever control character is left (C0 but tab and newline, DEL, C1), and the bidirectional
// overrides and isolates that reorder how a line reads.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with terminal control sequences removed (a CR LF pair becomes a newline).
 * @param {string} text
 */
export function forTerminal(text) {
  return text.replace(/\r\n/g, '\n').replace(SEQUENCES, '').replace(CONTROLS, '');
}

/**
 * A JSON document for a terminal or a pipe: JSON.stringify already escapes C0 characters; the
 * rest (DEL, C1, bidirectional controls) are escaped the same way, so the data stays intact.
 * @param {string} json
 */
export function jsonForTerminal(json) {
  return json.replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
