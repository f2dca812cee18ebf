/** RFC 6901 JSON Pointers: "" is the whole document; "/a~1b/0" is member "a/b", then item 0. */

export const parsePointer = (pointer: string): string[] =>
  pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))

export const formatPointer = (tokens: readonly (string | number)[]): string =>
  tokens.map((t) => `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
