import type { NtlmSessionSecurity } from './ntlm/session-security.js';

/**
 * WinRM message encryption over HTTP (MS-WSMV 2.2.9.1.1): each SOAP body is sealed with the
 * NTLM session and wrapped in a two-part MIME body. The layout (tab-indented part headers, no
 * CRLF before the closing boundary) is what Windows and pywinrm produce and expect.
 */

export const ENCRYPTED_PROTOCOL = 'application/HTTP-SPNEGO-session-encrypted';
export const ENCRYPTED_CONTENT_TYPE = `multipart/encrypted;protocol="${ENCRYPTED_PROTOCOL}";boundary="Encrypted Boundary"`;
const BOUNDARY = Buffer.from('--Encrypted Boundary', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');

/** Thrown for an encrypted body that cannot be taken apart or whose length does not match. */
export class EncryptedBodyError extends Error {}

/** True when a Content-Type header announces an NTLM-encrypted body. */
export function isEncryptedContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  return (
    contentType.toLowerCase().startsWith('multipart/encrypted') && contentType.includes(ENCRYPTED_PROTOCOL)
  );
}

/** Seals a SOAP body and frames it as multipart/encrypted. */
export function encryptBody(security: NtlmSessionSecurity, body: Buffer): Buffer {
  const { sealed, signature } = security.seal(body);
  const sigLength = Buffer.alloc(4);
  sigLength.writeUInt32LE(signature.length);
  const head =
    `--Encrypted Boundary\r\n\tContent-Type: ${ENCRYPTED_PROTOCOL}\r\n` +
    `\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=${body.length}\r\n` +
    '--Encrypted Boundary\r\n\tContent-Type: application/octet-stream\r\n';
  return Buffer.concat([
    Buffer.from(head, 'latin1'),
    sigLength,
    signature,
    sealed,
    BOUNDARY,
    Buffer.from('--\r\n'),
  ]);
}

/**
 * Takes a multipart/encrypted body apart, unseals every part and checks each against its
 * announced length. The sealed bytes are located by length, never by searching for the
 * boundary, because ciphertext may contain any byte sequence.
 */
export function decryptBody(security: NtlmSessionSecurity, payload: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const start = payload.indexOf(BOUNDARY, at);
    if (start < 0) throw new EncryptedBodyError('encrypted body has no MIME boundary');
    const afterBoundary = start + BOUNDARY.length;
    if (payload.subarray(afterBoundary, afterBoundary + 2).toString('latin1') === '--') break;
    const second = payload.indexOf(BOUNDARY, afterBoundary);
    if (second < 0) throw new EncryptedBodyError('encrypted body has only one part');
    const headers = payload.subarray(afterBoundary, second).toString('latin1');
    const length = /Length=(\d+)/i.exec(headers)?.[1];
    if (length === undefined) throw new EncryptedBodyError('encrypted body has no OriginalContent Length');
    const lineEnd = payload.indexOf(CRLF, second + BOUNDARY.length + 2);
    if (lineEnd < 0) throw new EncryptedBodyError('encrypted part has no header line');
    const dataStart = lineEnd + 2;
    if (payload.length < dataStart + 4) throw new EncryptedBodyError('encrypted part truncated');
    const sigLength = payload.readUInt32LE(dataStart);
    const sealedStart = dataStart + 4 + sigLength;
    const sealedEnd = sealedStart + Number(length);
    if (sigLength !== 16 || sealedEnd > payload.length) {
      throw new EncryptedBodyError('encrypted part is shorter than its announced length');
    }
    const signature = payload.subarray(dataStart + 4, sealedStart);
    out.push(security.unseal(payload.subarray(sealedStart, sealedEnd), signature));
    at = sealedEnd;
  }
  if (out.length === 0) throw new EncryptedBodyError('encrypted body holds no part');
  return Buffer.concat(out);
}
