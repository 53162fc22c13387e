/** A document the server does not read: a type it does not support, or bytes that are not what they claim. */
export class UnsupportedDocumentError extends Error {
  readonly code = 'unsupported_document';
}
