import { describe, expect, it } from 'vitest';
import { decryptBody, EncryptedBodyError, encryptBody } from '../../../src/transport/winrm/encryption.js';
import { NtlmClient } from '../../../src/transport/winrm/ntlm/client.js';
import { NtlmServer } from '../../../src/transport/winrm/ntlm/server.js';
import { NtlmSignatureError } from '../../../src/transport/winrm/ntlm/session-security.js';

describe('multipart/encrypted framing', () => {
  const session = () => {
    const server = new NtlmServer({ lookupPassword: () => 'pw' });
    const client = new NtlmClient({ account: 'u', password: 'pw' });
    const c = client.authenticate(server.challenge(client.negotiate()));
    const s = server.authenticate(c.message);
    return { client: c.security, server: s.security };
  };

  it('produces the layout Windows and pywinrm use, and decrypts it', () => {
    const { client, server } = session();
    const soap = Buffer.from('<s:Envelope>Grüße</s:Envelope>');
    const body = encryptBody(client, soap);
    const text = body.toString('latin1');
    expect(
      text.startsWith(
        '--Encrypted Boundary\r\n\tContent-Type: application/HTTP-SPNEGO-session-encrypted\r\n',
      ),
    ).toBe(true);
    expect(text).toContain(
      `\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=${soap.length}\r\n`,
    );
    expect(text).toContain('--Encrypted Boundary\r\n\tContent-Type: application/octet-stream\r\n');
    expect(text.endsWith('--Encrypted Boundary--\r\n')).toBe(true);
    const dataStart = text.indexOf('octet-stream\r\n') + 'octet-stream\r\n'.length;
    expect(body.readUInt32LE(dataStart)).toBe(16);
    expect(body.includes(soap)).toBe(false);
    expect(decryptBody(server, body).equals(soap)).toBe(true);
  });

  it('finds the sealed bytes by length even when they contain the boundary text', () => {
    const { client, server } = session();
    // Many messages: some ciphertext will contain "--" sequences; decryption must not care.
    for (let i = 0; i < 50; i++) {
      const soap = Buffer.from(`--Encrypted Boundary ${i} ${'-'.repeat(i)}`);
      expect(decryptBody(server, encryptBody(client, soap)).equals(soap)).toBe(true);
    }
  });

  it('rejects a tampered body and a wrong announced length', () => {
    const { client, server } = session();
    const body = encryptBody(client, Buffer.from('<s:Envelope/>'));
    const tampered = Buffer.from(body);
    tampered[tampered.length - 30] = (tampered[tampered.length - 30]! + 1) & 0xff;
    expect(() => decryptBody(server, tampered)).toThrow(NtlmSignatureError);
    const lying = Buffer.from(body.toString('latin1').replace('Length=13', 'Length=99'), 'latin1');
    expect(() => decryptBody(session().server, lying)).toThrow(EncryptedBodyError);
    expect(() => decryptBody(server, Buffer.from('not mime'))).toThrow(EncryptedBodyError);
  });
});
